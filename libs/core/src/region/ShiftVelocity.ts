// Shift velocity seen from real traffic (issue 14): instances report on their heartbeats the rate
// of calls they moved to each other region (`routed`); summed per receiving region over the live
// rows, that is the velocity the controller is letting through. A region receiving moved traffic
// faster than the shift plans in force allow (with a tolerance) is `shift_throttled`. A plan's
// phase changes (started, frozen, reversed, resumed, ended) are what is announced and logged.
import { isLive } from '../quorum/Quorum.js';
import type { ShiftMode, ShiftPlan } from './ShiftPlan.js';

/** A live heartbeat row as far as routed rates go. */
export interface RoutedRow {
  region: string;
  lastSeenAt: number;
  /** requests/s the instance moved to each other region over its last window */
  routed?: Readonly<Record<string, number>> | null;
}

const rate = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0);

/**
 * Requests/s moved into each region now: the live rows' routed rates summed per receiving region.
 * A row's rate to its own region is not a move and is ignored. Regions sorted by name.
 */
export function routedInto(
  rows: readonly RoutedRow[],
  now: number,
  heartbeatTtlMs: number,
): Map<string, number> {
  const into = new Map<string, number>();
  for (const r of rows) {
    if (!r.routed || !isLive(r, now, heartbeatTtlMs)) continue;
    for (const [region, v] of Object.entries(r.routed)) {
      if (region === r.region || rate(v) === 0) continue;
      into.set(region, (into.get(region) ?? 0) + rate(v));
    }
  }
  return new Map([...into].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * What one source's plan allows into each receiver now: the larger of its current rate and the
 * previous plan's (instances follow the plan of their last heartbeat for one more interval, so a
 * step down is not a breach until it reached them).
 */
export function allowedRates(
  plan: Pick<ShiftPlan, 'receivers'>,
  previous: Readonly<Record<string, number>> | null,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [region, v] of Object.entries(previous ?? {})) if (rate(v) > 0) out[region] = rate(v);
  for (const r of plan.receivers) out[r.region] = Math.max(out[r.region] ?? 0, rate(r.ratePerSec));
  return out;
}

/** Requests/s all sources' plans together allow into each region (sum of allowedRates). */
export function allowedInto(allowed: readonly Readonly<Record<string, number>>[]): Map<string, number> {
  const into = new Map<string, number>();
  for (const a of allowed)
    for (const [region, v] of Object.entries(a)) into.set(region, (into.get(region) ?? 0) + rate(v));
  return into;
}

/**
 * The shift_throttled rule: a region receives moved traffic faster than the plans allow, beyond
 * the tolerance (a share of what is allowed). Receiving nothing is never throttled; receiving
 * anything where nothing is allowed is.
 */
export function isShiftThrottled(received: number, allowed: number, tolerance: number): boolean {
  const got = rate(received);
  return got > 0 && got > rate(allowed) * (1 + Math.max(0, Number.isFinite(tolerance) ? tolerance : 0));
}

/** The regions receiving moved traffic faster than allowed (sorted). */
export function throttledRegions(
  routedIn: ReadonlyMap<string, number>,
  allowedIn: ReadonlyMap<string, number>,
  tolerance: number,
): string[] {
  return [...routedIn]
    .filter(([region, got]) => isShiftThrottled(got, allowedIn.get(region) ?? 0, tolerance))
    .map(([region]) => region)
    .sort();
}

/** How a source region's shift plan changed phase (what is announced and logged). */
export type ShiftPhase = 'started' | 'resumed' | 'frozen' | 'reversed' | 'ended';
export const SHIFT_PHASES: readonly ShiftPhase[] = ['started', 'resumed', 'frozen', 'reversed', 'ended'];

/**
 * The phase change from the stored mode (null: no plan yet) to the new one, or null when the
 * phase did not change (a ramp step within `shifting` is not a phase change).
 */
export function shiftPhaseChange(from: ShiftMode | null, to: ShiftMode): ShiftPhase | null {
  const was = from ?? 'idle';
  if (was === to) return null;
  switch (to) {
    case 'shifting':
      return was === 'idle' ? 'started' : 'resumed';
    case 'frozen':
      return 'frozen';
    case 'reversing':
      return 'reversed';
    case 'idle':
      return 'ended';
  }
}
