// When control returns. The controller resumes from its stored state, but a process that just
// started may have lost track of what it granted: for one lease TTL it grants an instance nothing
// beyond what the instance reports holding. Fallback spells are announced once per region.
import type { ClassAllowance, FallbackReport, TrafficClass } from '../wire.js';
import { DEFAULT_LOST_AFTER_BEATS } from './FallbackRules.js';

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

/** The controller's timings a spell is judged by. */
export interface SpellTiming {
  leaseTtlMs: number;
  heartbeatIntervalMs: number;
}

/**
 * How far apart reporters of one spell may estimate its start: detection and return differ by a
 * lease TTL (a plan runs out) and the beats an instance takes to call control lost.
 */
export function fallbackSpellToleranceMs(timing: SpellTiming): number {
  return timing.leaseTtlMs + DEFAULT_LOST_AFTER_BEATS * timing.heartbeatIntervalMs;
}

/**
 * What one report of a spell means for announcing it, given the start of the last spell announced
 * for its (breaker, region) (undefined: none). Null for a blip shorter than a lease TTL: every grant
 * was still valid, so it cost nothing and is no alert. Else the start to remember (the earliest of
 * one spell's estimates) and whether this report opens a spell not announced yet.
 */
export function fallbackSpell(
  report: Pick<FallbackReport, 'durationMs'>,
  now: number,
  lastStart: number | undefined,
  timing: SpellTiming,
): { start: number; announce: boolean } | null {
  if (!(report.durationMs >= timing.leaseTtlMs)) return null;
  const start = now - Math.max(0, report.durationMs);
  const same =
    lastStart !== undefined && sameFallbackSpell(lastStart, start, fallbackSpellToleranceMs(timing));
  return same ? { start: Math.min(lastStart, start), announce: false } : { start, announce: true };
}
