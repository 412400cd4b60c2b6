// Region-local or global: quorum is counted per region and for the pool. A region whose own live
// instances reached quorum while the rest of the pool is healthy is an outlier (an AZ or network
// path fault): only that region pauses (`region_open`). Quorum across the pool — a fraction of its
// regions, or of all its live instances — is a global `open`. Errors spread evenly over every region
// are not a regional fault, however high they run in one region: they are the pool's, and its
// quorum decides. A region receiving moved traffic faster than the shift plan allows is
// `shift_throttled` (its senders are told to slow down).
import { quorumThreshold, type QuorumPolicy } from '../quorum/Quorum.js';
import { isShiftThrottled } from './ShiftVelocity.js';

export type RegionalVerdictKind = 'closed' | 'region_open' | 'open' | 'shift_throttled';

/** One region's live picture, counted from fresh heartbeat rows. */
export interface RegionHealth {
  region: string;
  live: number;
  /** live instances locally open */
  open: number;
  /** failed share of the region's attempts in the last window, in [0, 1] (0 when it made none) */
  errorRate: number;
  /** in [0, 1]: how close the region is to its capacity (queue age, 429s, load / capacity) */
  saturation: number;
  /** requests/s moved into this region from others now (heartbeats' routed rates) */
  shiftedInRate?: number;
  /** requests/s the shift plans allow into this region now */
  shiftAllowedRate?: number;
}

export interface RegionalPolicy {
  /** per region: K = max(minOpen, ⌈fraction × live⌉) of the region's live instances */
  region: QuorumPolicy;
  /** across the pool: the same rule over all live instances */
  pool: QuorumPolicy;
  /** global when more than this share of the regions with live instances reached their quorum */
  regionFraction: number;
  /** the rest of the pool is healthy when its error rate is at most this */
  healthyErrorRate: number;
  /** a region takes moved traffic up to (1 + this) × what the plans allow before it is throttled */
  shiftTolerance: number;
}

export const DEFAULT_REGIONAL_POLICY: RegionalPolicy = {
  region: { fraction: 0.5, minOpen: 2 },
  pool: { fraction: 0.5, minOpen: 2 },
  regionFraction: 0.5,
  healthyErrorRate: 0.1,
  shiftTolerance: 0.1,
};

/** The health signature published per breaker: the region's and the pool's error rate and saturation. */
export interface HealthSignature {
  region: { errorRate: number; saturation: number } | null;
  pool: { errorRate: number; saturation: number };
}

export interface RegionVerdict {
  region: string;
  verdict: RegionalVerdictKind;
  quorum: { open: number; live: number; threshold: number; reached: boolean };
  signature: HealthSignature;
  reason: string;
}

export interface RegionalDecision {
  /** `open` when the pool reached quorum: every region pauses, recovery runs once for the pool */
  pool: 'closed' | 'open';
  poolQuorum: { open: number; live: number; threshold: number; reached: boolean };
  regionsAtQuorum: string[];
  regions: RegionVerdict[];
}

/** Live-weighted mean of a per-region figure (0 when nobody is live). */
function weighted(rows: readonly RegionHealth[], pick: (r: RegionHealth) => number): number {
  let live = 0;
  let sum = 0;
  for (const r of rows) {
    live += r.live;
    sum += r.live * clamp01(pick(r));
  }
  return live > 0 ? sum / live : 0;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/**
 * Every region's verdict from the regions' live pictures. Regions without live instances are
 * `closed` (nobody to judge them) and do not count toward the share of regions at quorum.
 */
export function decideRegional(
  rows: readonly RegionHealth[],
  policy: RegionalPolicy,
  /**
   * the verdicts of the previous evaluation: a region already set apart stays `region_open` while
   * it is at quorum and the pool is not (a second region failing must not flip the first back and
   * forth between regional and nothing while the rest of the pool is briefly unsettled)
   */
  previous?: ReadonlyMap<string, RegionalVerdictKind>,
): RegionalDecision {
  const liveRows = rows.filter((r) => r.live > 0);
  const totalLive = liveRows.reduce((s, r) => s + r.live, 0);
  const totalOpen = liveRows.reduce((s, r) => s + Math.min(r.open, r.live), 0);
  const poolThreshold = quorumThreshold(totalLive, policy.pool);
  const regionQuorum = (r: RegionHealth) => {
    const threshold = quorumThreshold(r.live, policy.region);
    const open = Math.min(r.open, r.live);
    return { open, live: r.live, threshold, reached: r.live > 0 && open >= threshold };
  };
  const atQuorum = liveRows.filter((r) => regionQuorum(r).reached).map((r) => r.region);
  const poolReached =
    totalLive > 0 &&
    (totalOpen >= poolThreshold ||
      (liveRows.length > 0 && atQuorum.length / liveRows.length > policy.regionFraction));
  const poolSig = {
    errorRate: weighted(liveRows, (r) => r.errorRate),
    saturation: weighted(liveRows, (r) => r.saturation),
  };

  const regions = rows.map((r): RegionVerdict => {
    const quorum = regionQuorum(r);
    const signature: HealthSignature = {
      region: r.live > 0 ? { errorRate: clamp01(r.errorRate), saturation: clamp01(r.saturation) } : null,
      pool: poolSig,
    };
    const base = { region: r.region, quorum, signature };
    if (poolReached) return { ...base, verdict: 'open', reason: 'the pool reached quorum' };
    if (quorum.reached) {
      // the regions below their quorum must be healthy: errors concentrated where quorum was reached
      const rest = liveRows.filter((o) => !atQuorum.includes(o.region));
      const restHealthy = rest.length > 0 && weighted(rest, (o) => o.errorRate) <= policy.healthyErrorRate;
      if (restHealthy || previous?.get(r.region) === 'region_open')
        return {
          ...base,
          verdict: 'region_open',
          reason: 'errors concentrated in this region; the rest of the pool is healthy',
        };
      return {
        ...base,
        verdict: 'closed',
        reason: 'errors are not concentrated in this region: the pool quorum decides',
      };
    }
    if (isShiftThrottled(r.shiftedInRate ?? 0, r.shiftAllowedRate ?? 0, policy.shiftTolerance))
      return {
        ...base,
        verdict: 'shift_throttled',
        reason: 'receiving moved traffic faster than the shift plans allow',
      };
    return { ...base, verdict: 'closed', reason: 'the region is below its quorum' };
  });
  return {
    pool: poolReached ? 'open' : 'closed',
    poolQuorum: { open: totalOpen, live: totalLive, threshold: poolThreshold, reached: poolReached },
    regionsAtQuorum: atQuorum,
    regions,
  };
}
