// Where a ramp goes next, as a level: the fraction of each admitted class's capacity. A ramp does
// not step through a fixed grid; it finds the level the provider sustains:
// - it starts at the pool's first step and, while nothing failed, grows geometrically from the last
//   level that held — by `growth` below the level the breaker last sustained (its learned capacity),
//   by `probeGrowth` × (level / learned) above it — the growth shrinking to a tenth as the step's p95 latency inflates
//   halfway toward `latencyInflation` × the lowest seen in this recovery (queueing shows before
//   failures; past `latencyInflation` the level counts as degraded: GlobalBreaker.ts);
// - once a level failed, it bisects between the last level that held and the lowest that failed,
//   never above (1 − headroom) × the failed level, and settles when the gap is within BISECT_PRECISION;
// - a level that held once and then degrades (the provider lost capacity) falls multiplicatively,
//   by less than a level that never held (SLIPPED_DECREASE): it slipped, it did not overshoot; on
//   latency alone, below the top, by more the further its p95 overshot the gate (slipShare).
import type { RampConfig } from '../pool/PoolConfig.js';

/**
 * Latencies are compared with the recovery's lowest, but never with less than this: a baseline of a
 * few milliseconds is noise (a local network, a cached answer), not a measure of an idle provider.
 */
export const LATENCY_FLOOR_MS = 50;

/** The step's p95 over the recovery's lowest (floored at LATENCY_FLOOR_MS); null when either is unknown. */
export function latencyRatio(p95Ms: number | null, baselineMs: number | null): number | null {
  if (p95Ms === null || baselineMs === null || !(baselineMs > 0) || !Number.isFinite(p95Ms)) return null;
  return p95Ms / Math.max(baselineMs, LATENCY_FLOOR_MS);
}

/** Bisection stops when the next level would be within this share above the level that held. */
export const BISECT_PRECISION = 0.02;
/** A level that degrades with nothing lower known to hold falls to this share of itself (between CUBIC's 0.7 and a step of headroom). */
export const LEVEL_DECREASE = 0.8;
/**
 * The growth never shrinks below this share of (growth − 1), reached at a p95 twice the recovery's
 * lowest: the provider is saturated there (every slot busy, a queue forming), so the ramp all but
 * stops and the level is found by the gates and the settle retries instead. 0.03 (+9 % a dwell at
 * growth 4) kept climbing into a saturated provider: 1.2× its capacity in S2 and, in the collapsing
 * model, a collapse.
 */
export const MIN_GROWTH_SHARE = 0.003;

type LevelConfig = Pick<RampConfig, 'steps' | 'growth' | 'probeGrowth' | 'headroom' | 'latencyInflation'>;

/** The level a ramp starts at (the pool's first step). */
export function startLevel(ramp: Pick<RampConfig, 'steps'>): number {
  return ramp.steps[0] ?? 1;
}

/** The most a ramp admits (the pool's last step, normally 1). */
export function topLevel(ramp: Pick<RampConfig, 'steps'>): number {
  return ramp.steps[ramp.steps.length - 1] ?? 1;
}

/**
 * The growth factor after `held` passed: `growth` below the learned level (`sustained`, null =
 * unknown: the pool's capacity), `probeGrowth` at or above it, shrunk by latency inflation
 * (`latencyRatio` = the step's p95 over the recovery's lowest; null = not measured).
 */
export function growthAfter(
  ramp: LevelConfig,
  held: number,
  sustained: number | null,
  latencyRatio: number | null,
  afterCollapse = false,
): number {
  const learned = sustained ?? topLevel(ramp);
  // above the learned level: probeGrowth at first, accelerating as the level keeps holding above it
  // (convex, like CUBIC's probing), never more than growth; after a collapse in this recovery, no
  // acceleration: probeGrowth all the way
  const above = afterCollapse ? ramp.probeGrowth : Math.min(ramp.growth, ramp.probeGrowth * (held / learned));
  const g = held < learned ? ramp.growth : above;
  // the growth is spent by the time latency has inflated halfway to where a level counts as degraded
  const half = (ramp.latencyInflation - 1) / 2;
  const slack =
    latencyRatio === null || !Number.isFinite(latencyRatio)
      ? 1
      : clamp((1 + half - latencyRatio) / half, MIN_GROWTH_SHARE, 1);
  return 1 + (g - 1) * slack;
}

/**
 * The next level after `held` passed and nothing failed: held × growth, not past the learned level
 * in one move (from below it), never above the top. Always above `held` unless held is the top.
 */
export function grownLevel(
  ramp: LevelConfig,
  held: number,
  sustained: number | null,
  latencyRatio: number | null,
  afterCollapse = false,
): number {
  const top = topLevel(ramp);
  let next = held * growthAfter(ramp, held, sustained, latencyRatio, afterCollapse);
  if (sustained !== null && held < sustained) next = Math.min(next, sustained);
  return Math.min(top, next);
}

/**
 * Between the level that held and the lowest that failed: their midpoint, at most (1 − headroom) ×
 * failed and growth × held. null when that is not worth a move (within BISECT_PRECISION of held): settle at held.
 */
export function bisectedLevel(
  ramp: Pick<RampConfig, 'headroom' | 'growth'>,
  held: number,
  failed: number,
): number | null {
  // never more than a growth step above held: a landing sized from what a failing level delivered
  // can lie far below the level that failed
  const next = Math.min((held + failed) / 2, failed * (1 - ramp.headroom), held * ramp.growth);
  return next > held * (1 + BISECT_PRECISION) ? next : null;
}

/**
 * A level that held in this recovery (a settled level, the top) and then degrades has slipped,
 * not overshot: the provider's capacity drifted just under it, or a burst queued. It falls by this
 * share only, so the ramp is back near its limit in a bisection step or two instead of crawling
 * back from LEVEL_DECREASE; a provider that keeps losing capacity makes it fall again each window.
 * 0.97, not 0.9: at a settled top level the collapsing provider's queue inflates latency every
 * minute or so, and a 10 % cut then cost about a point of S1's goodput each time.
 */
export const SLIPPED_DECREASE = 0.97;

/**
 * How far a level that held falls when it degrades on latency alone, below the top: by the square
 * of how far its p95 overshot the gate, (gate / latencyRatio)², between SLIPPED_DECREASE and
 * LEVEL_DECREASE. A p95 just over the gate is a burst's queue, and a slip of 3 % drains it; one far
 * over it says the level is above what the provider serves now, where a 3 % slip left the
 * collapsing provider tipping (collapse S2 10 % seed 7: a level at 4.0× the lowest, with a gate of
 * 3×, slipped 3 % and collapsed six seconds later). `latencyRatio` null: SLIPPED_DECREASE.
 */
export function slipShare(latencyRatio: number | null, inflationGate: number): number {
  if (latencyRatio === null || !Number.isFinite(latencyRatio) || !(latencyRatio > 0)) return SLIPPED_DECREASE;
  return clamp((inflationGate / latencyRatio) ** 2, LEVEL_DECREASE, SLIPPED_DECREASE);
}

/**
 * Where a level that degraded lands when no lower level of this recovery is known to hold:
 * LEVEL_DECREASE of it, or `slipped` of it (SLIPPED_DECREASE unless slipShare says more) when the
 * level itself had held (`heldBefore`).
 */
export function decreasedLevel(
  ramp: Pick<RampConfig, 'steps'>,
  level: number,
  heldBefore = false,
  slipped = SLIPPED_DECREASE,
): number {
  return Math.max(startLevel(ramp), level * (heldBefore ? slipped : LEVEL_DECREASE));
}

/**
 * The learned level after a collapse at `level`: multiplicatively below both what was learned
 * before and the load that collapsed the provider (additive increase and multiplicative decrease).
 * That load is `level`, or the limit this recovery found (`limit`, its lowest failed level) when the
 * collapse came below it: a level stepped back to collapses in the aftermath of the overload above
 * (the provider lost health while that level queued), which says nothing against the lower level.
 * Learning from the landing left a provider back at 10 % to climb from 2.4 % at probeGrowth.
 */
export function learnedAfterCollapse(
  ramp: Pick<RampConfig, 'steps'>,
  sustained: number | null,
  level: number,
  limit: number | null = null,
): number {
  return Math.min(sustained ?? topLevel(ramp), Math.max(level, limit ?? 0)) * LEVEL_DECREASE;
}

/**
 * The level the provider delivered while `level` was admitted: the level times the share of its
 * attempts that succeeded. (Successes per second of the window would undercount: a step's sample
 * leaves out heartbeat windows that began before the step.) null without attempts.
 */
export function deliveredLevel(level: number, successes: number, attempts: number): number | null {
  if (!(attempts > 0) || !Number.isFinite(successes)) return null;
  return level * Math.min(1, Math.max(0, successes) / attempts);
}

/**
 * Where a ramp lands after the level above `held` failed (degraded or collapsed): the last level that
 * held, but no higher than what the provider delivered while failing, less headroom (learned
 * capacity): a provider that degrades under overload serves less than the level that last held,
 * and landing there again collapsed it a second time. Never below the start level (unless `held` is).
 */
export function landingLevel(
  ramp: Pick<RampConfig, 'steps' | 'headroom'>,
  held: number,
  delivered: number | null,
): number {
  if (delivered === null) return held;
  const floor = Math.min(held, startLevel(ramp));
  return Math.max(floor, Math.min(held, delivered * (1 - ramp.headroom)));
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
