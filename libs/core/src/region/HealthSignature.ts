// The health signature a breaker publishes: the error rate and saturation of its region (for a
// region-scoped breaker) and of the pool-wide picture (every live instance reporting on it), from
// the evidence in live heartbeat rows. The regional verdict compares exactly these figures, so an
// operator sees the numbers a region_open or a global open was decided on.
import { isLive, isLocallyOpen } from '../quorum/Quorum.js';
import type { Evidence, ReportedState } from '../wire.js';
import type { RegionHealth } from './RegionalVerdict.js';

/** Outcomes that count as failed for the error rate (what the dependency or its path did). */
const FAILED = ['overload', 'network', 'slow', 'rate_limited'] as const;
/** Outcomes that say the provider is pushing back (saturation): throttled, or served too slowly. */
const PUSHBACK = ['rate_limited', 'slow'] as const;

export interface SignatureRow {
  region: string;
  lastSeenAt: number;
  evidence: Evidence;
}

export interface HealthFigures {
  /** live instances counted */
  live: number;
  /** attempts in their last windows */
  attempts: number;
  /** failed share of those attempts, in [0, 1] (0 without attempts) */
  errorRate: number;
  /** share of attempts the provider throttled or served beyond the slow threshold, in [0, 1] */
  saturation: number;
}

export interface BreakerHealthSignature {
  /** the breaker's region (null for a breaker of the whole group) */
  region: (HealthFigures & { name: string }) | null;
  pool: HealthFigures;
}

/** Error rate and saturation over the live rows given (one region's, or everyone's). */
export function healthFigures(
  rows: readonly SignatureRow[],
  now: number,
  heartbeatTtlMs: number,
): HealthFigures {
  let live = 0;
  let attempts = 0;
  let failed = 0;
  let pushback = 0;
  for (const r of rows) {
    if (!isLive(r, now, heartbeatTtlMs)) continue;
    live += 1;
    const e = r.evidence;
    attempts += e.attempts;
    for (const k of FAILED) failed += e.byClass[k];
    for (const k of PUSHBACK) pushback += e.byClass[k];
  }
  const share = (n: number): number => (attempts > 0 ? Math.min(1, n / attempts) : 0);
  return { live, attempts, errorRate: share(failed), saturation: share(pushback) };
}

/** The signature of a breaker covering `region` (null: the whole group) from its live rows. */
export function healthSignature(
  rows: readonly SignatureRow[],
  region: string | null,
  now: number,
  heartbeatTtlMs: number,
): BreakerHealthSignature {
  return {
    region:
      region === null
        ? null
        : {
            name: region,
            ...healthFigures(
              rows.filter((r) => r.region === region),
              now,
              heartbeatTtlMs,
            ),
          },
    pool: healthFigures(rows, now, heartbeatTtlMs),
  };
}

/**
 * Each region's live picture for the regional verdict (decideRegional), from one breaker's rows:
 * live and locally open instances, error rate and saturation as the health signature counts them.
 * Regions sorted by name.
 */
export function regionHealthOf(
  rows: readonly (SignatureRow & { state: ReportedState })[],
  now: number,
  heartbeatTtlMs: number,
): RegionHealth[] {
  const byRegion = new Map<string, (SignatureRow & { state: ReportedState })[]>();
  for (const r of rows) {
    const list = byRegion.get(r.region);
    if (list) list.push(r);
    else byRegion.set(r.region, [r]);
  }
  return [...byRegion]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([region, list]) => {
      const f = healthFigures(list, now, heartbeatTtlMs);
      const open = list.filter((r) => isLive(r, now, heartbeatTtlMs) && isLocallyOpen(r.state)).length;
      return { region, live: f.live, open, errorRate: f.errorRate, saturation: f.saturation };
    });
}
