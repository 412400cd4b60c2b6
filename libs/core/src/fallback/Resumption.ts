// When control returns. The controller resumes from its stored state, but a process that just
// started may have lost track of what it granted: for one lease TTL it grants an instance nothing
// beyond what the instance reports holding. Fallback spells are announced once per region.
import type { ClassAllowance, FallbackReport, TrafficClass } from '../wire.js';

/** the resumption window: from the process's start, one lease TTL */
export function resuming(now: number, startedAt: number, leaseTtlMs: number): boolean {
  return now >= startedAt && now < startedAt + leaseTtlMs;
}

/**
 * The allowance capped per class at the rate the instance reports holding (a class it does not
 * hold, or no report at all: nothing). Burst and concurrency are kept only for classes still granted.
 */
export function capToHolding(
  allowance: Record<TrafficClass, ClassAllowance>,
  report: Pick<FallbackReport, 'holding'> | undefined,
): Record<TrafficClass, ClassAllowance> {
  const out: Record<TrafficClass, ClassAllowance> = {};
  const holding = report?.holding ?? {};
  for (const [cls, a] of Object.entries(allowance)) {
    const held = holding[cls];
    if (held === undefined || !(held > 0) || !Number.isFinite(held)) continue;
    out[cls] = { ...a, ratePerSec: Math.min(a.ratePerSec, held) };
  }
  return out;
}

/**
 * Reports of one spell reach the controller from every instance of a region within a few
 * intervals, each with its own estimate of when the spell began (now − durationMs). Two estimates
 * within `toleranceMs` belong to the same spell: it is announced once.
 */
export function sameFallbackSpell(startA: number, startB: number, toleranceMs: number): boolean {
  return Math.abs(startA - startB) <= toleranceMs;
}
