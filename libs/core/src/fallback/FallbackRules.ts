// What an instance does while the controller is unreachable (FALLBACK). The rules, in one place:
// - control is lost when heartbeats fail for `lostAfterBeats` intervals in a row, or when the last
//   plan's validity runs out, whichever comes first;
// - nobody's admitted rate rises above the last allowance granted, and nothing ramps: a RAMPING
//   breaker keeps its last allowance only while that allowance is valid, then pauses;
// - OPEN or PROBING (or RAMPING past its allowance): paused, except the region's probe owners, who
//   split the region's share with Poisson timing;
// - an ordinary instance cut off past the maximum isolation time joins at share ÷ region live
//   count, and owners drop to that same rate then, so the region's total stays within its share;
// - CLOSED keeps working on the local breaker; a new local trip follows the owners-only rule.
import { DEFAULT_FALLBACK } from '../pool/PoolDefaults.js';
import type { BreakerPlan, GlobalState } from '../wire.js';

/** heartbeats failing this many intervals in a row mean control is lost (unless configured) */
export const DEFAULT_LOST_AFTER_BEATS = 1;
/** an ordinary instance cut off this long joins the region's probing (unless configured) */
export const DEFAULT_MAX_ISOLATION_MS = 60_000;

export interface ControlLossInput {
  /** heartbeats that failed in a row, since the last answered one */
  failedBeats: number;
  lostAfterBeats: number;
  now: number;
  /** when the last plan's validity (its allowance, or the lease TTL) runs out; Infinity before any */
  planValidUntil: number;
}

export function controlLost(i: ControlLossInput): boolean {
  return i.failedBeats >= Math.max(1, i.lostAfterBeats) || i.now >= i.planValidUntil;
}

/**
 * - `local`: calls go on under the instance's own local breaker (the group was CLOSED);
 * - `allowance`: calls go on within the last allowance granted, never above it (RAMPING, still valid);
 * - `owners-only`: paused; only fallback probes paced by fallbackProbeRate.
 */
export type FallbackConduct = 'local' | 'allowance' | 'owners-only';

export function fallbackConduct(
  lastGlobal: GlobalState | null,
  locallyOpen: boolean,
  allowanceValid: boolean,
): FallbackConduct {
  if (lastGlobal === null || lastGlobal === 'closed') return locallyOpen ? 'owners-only' : 'local';
  if (lastGlobal === 'ramping' && allowanceValid) return 'allowance';
  return 'owners-only';
}

/**
 * This instance's fallback probe rate (requests/s) from the last plan's fallback part: an owner's
 * part of the region's share (share ÷ owners) until `isolatedForMs` reaches `maxIsolationMs`, then
 * share ÷ region live count for every instance of the region, owners included. Summed over a
 * region's instances it never exceeds the region's share. Without a fallback plan: 0.
 */
export function fallbackProbeRate(
  plan: BreakerPlan['fallback'],
  isolatedForMs: number,
  maxIsolationMs: number,
): number {
  if (!plan) return 0;
  const share = plan.regionShare.ratePerSec;
  if (!(share > 0) || !Number.isFinite(share)) return 0;
  const live = Math.floor(plan.regionLive);
  if (isolatedForMs >= maxIsolationMs) return live >= 1 ? share / live : 0;
  if (!plan.probeOwner) return 0;
  const owners = Math.floor(plan.owners ?? Math.min(live, DEFAULT_FALLBACK.ownersPerRegion));
  return share / Math.max(1, owners);
}
