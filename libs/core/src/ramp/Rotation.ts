// When the admission window of a ramp moves, and whether a heartbeat hears of the move ahead of
// time. The controller and the allowance property test both ask this, so the instance the test
// models and the instance the controller answers switch windows at the same moment.
import { ROTATION_TTLS } from './Allowance.js';

/**
 * Heartbeats announce the next window this many intervals ahead. One interval is enough when no
 * heartbeat is lost, but an instance that loses its one heartbeat of that interval keeps the old
 * window's share past the move while the new window's instances burst: the allowance property
 * (Allowance.test.ts) exceeds the step's rate plus one burst per instance then. With two intervals
 * an instance must lose two heartbeats in a row to miss the announcement.
 */
export const ANNOUNCE_INTERVALS = 2;

export interface RotationAt {
  /** floor(receivedAt / periodMs): the allowance period (the key of its division) */
  period: number;
  /** floor(period / ROTATION_TTLS): the admission window in force (divideAllowances `rotation`) */
  rotation: number;
  /** the first period of the next window: where the window moves */
  nextPeriod: number;
  /**
   * ms from receivedAt to the move T, when the heartbeat falls in the last ANNOUNCE_INTERVALS
   * heartbeat intervals before it (receivedAt ∈ [T − 2·intervalMs, T)); else null. Not sooner: the
   * next window's shares are divided when first announced, from the demand of that moment.
   */
  announceInMs: number | null;
}

/**
 * Where a heartbeat received at `receivedAt` falls among allowance periods of `periodMs` and the
 * admission windows (one per ROTATION_TTLS periods), and whether it must announce the next window.
 * Non-finite or non-positive inputs give period and rotation 0 and no announcement.
 */
export function rotationAt(receivedAt: number, periodMs: number, intervalMs: number): RotationAt {
  if (!Number.isFinite(receivedAt) || !(periodMs > 0) || !Number.isFinite(periodMs))
    return { period: 0, rotation: 0, nextPeriod: ROTATION_TTLS, announceInMs: null };
  const period = Math.floor(receivedAt / periodMs);
  const rotation = Math.floor(period / ROTATION_TTLS);
  const nextPeriod = (rotation + 1) * ROTATION_TTLS;
  const inMs = nextPeriod * periodMs - receivedAt;
  const announce = intervalMs > 0 && inMs > 0 && inMs <= ANNOUNCE_INTERVALS * intervalMs;
  return { period, rotation, nextPeriod, announceInMs: announce ? inMs : null };
}
