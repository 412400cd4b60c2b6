// The pool's small fallback budget (fallback.ratePerSec), divided among regions ahead of time so
// that, with the controller gone, each region knows what it may spend without asking anyone.
// Other capabilities (regional failure domains) reuse this division: it depends only on the pool's
// fallback section and on which regions have live instances.
import type { FallbackConfig } from '../pool/PoolConfig.js';

/** The weight of a region the operator did not name in regionWeights (the default weighting). */
export const DEFAULT_REGION_WEIGHT = 1;

/**
 * Region → requests/s, for the regions with at least one live instance. Each region's share is
 * ratePerSec × its weight / the sum of the weights of those regions (equal without regionWeights;
 * a region absent from regionWeights weighs DEFAULT_REGION_WEIGHT). A region without live
 * instances gets nothing (nobody there to spend it); the shares sum to ratePerSec unless every
 * live region weighs 0. Regions are visited in sorted order so the floating-point sum is the same
 * whatever order the live counts came in.
 */
export function divideFallbackShares(
  config: Pick<FallbackConfig, 'ratePerSec' | 'regionWeights'>,
  liveByRegion: ReadonlyMap<string, number>,
): Map<string, number> {
  const rate = Number.isFinite(config.ratePerSec) && config.ratePerSec > 0 ? config.ratePerSec : 0;
  const regions = [...liveByRegion.entries()]
    .filter(([, live]) => live > 0)
    .map(([region]) => region)
    .sort();
  const weightOf = (region: string): number => {
    const w = config.regionWeights?.[region];
    return w === undefined ? DEFAULT_REGION_WEIGHT : Number.isFinite(w) && w > 0 ? w : 0;
  };
  let total = 0;
  for (const r of regions) total += weightOf(r);
  const out = new Map<string, number>();
  for (const r of regions) out.set(r, total > 0 ? (rate * weightOf(r)) / total : 0);
  return out;
}
