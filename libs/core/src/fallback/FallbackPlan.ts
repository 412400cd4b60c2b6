// The fallback part of every heartbeat plan: computed once per period from the live fleet (region
// shares and probe owners), then looked up per heartbeat in O(owners).
import type { FallbackConfig } from '../pool/PoolConfig.js';
import type { BreakerPlan } from '../wire.js';
import { chooseProbeOwners, type LiveInstance } from './ProbeOwners.js';
import { divideFallbackShares } from './RegionShares.js';

export interface RegionFallback {
  ratePerSec: number;
  live: number;
  owners: readonly string[];
}

/** region → its share, live count and owners */
export type FallbackTable = ReadonlyMap<string, RegionFallback>;

/**
 * The table for one breaker: `salt` names it (its id), so each breaker spreads owner duty over
 * different instances. Live instances are counted once each, in the region they last reported.
 */
export function planFallback(
  config: FallbackConfig,
  live: readonly LiveInstance[],
  salt: string,
): FallbackTable {
  const seen = new Map<string, string>();
  for (const l of live) seen.set(l.instanceId, l.region);
  const unique = [...seen.entries()].map(([instanceId, region]) => ({ instanceId, region }));
  const liveByRegion = new Map<string, number>();
  for (const l of unique) liveByRegion.set(l.region, (liveByRegion.get(l.region) ?? 0) + 1);
  const shares = divideFallbackShares(config, liveByRegion);
  const owners = chooseProbeOwners(unique, config.ownersPerRegion, salt);
  const out = new Map<string, RegionFallback>();
  for (const [region, live] of liveByRegion) {
    out.set(region, { ratePerSec: shares.get(region) ?? 0, live, owners: owners.get(region) ?? [] });
  }
  return out;
}

/**
 * What a heartbeat plan tells `instanceId` of `region`. A region the table has not met yet (the
 * instance is newer than the table) has no share until the next period: it probes nothing.
 */
export function fallbackOf(
  table: FallbackTable,
  instanceId: string,
  region: string,
): NonNullable<BreakerPlan['fallback']> {
  const r = table.get(region);
  if (!r) return { probeOwner: false, regionShare: { ratePerSec: 0 }, regionLive: 0, owners: 0 };
  return {
    probeOwner: r.owners.includes(instanceId),
    regionShare: { ratePerSec: r.ratePerSec },
    regionLive: r.live,
    owners: r.owners.length,
  };
}
