// A region's slice of its pool (issue 14): the controller knows no per-region capacity, so a region
// stands for its live instances' share of the pool's live instances. One rule for both places that
// need a region's capacity: the shift plan's receivers and sources (regionShiftInput) and the ramp
// of a region breaker, whose allowances divide the region's slice, not the whole pool's capacity
// (a region's endpoint ramped against the pool's quota would be offered several times what it
// serves long before the ramp's top level).
import type { PoolConfig } from '../pool/PoolConfig.js';

/** A region's share of its pool's capacity: its live instances over the pool's (0 when none live). */
export function regionCapacityShare(regionLive: number, poolLive: number): number {
  if (!(poolLive > 0) || !Number.isFinite(poolLive) || !(regionLive > 0)) return 0;
  return Math.min(1, regionLive / poolLive);
}

/**
 * The pool a region breaker budgets its ramp with: every class's capacity scaled to `share` (rate
 * exactly, concurrency rounded up and at least one call, so a small region can still ramp).
 */
export function regionSlice(pool: PoolConfig, share: number): PoolConfig {
  const s = Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
  const capacity: PoolConfig['capacity'] = {};
  for (const [cls, c] of Object.entries(pool.capacity))
    capacity[cls] = {
      ratePerSec: c.ratePerSec * s,
      concurrency: Math.max(1, Math.ceil(c.concurrency * s - 1e-9)),
    };
  return { ...pool, capacity };
}
