import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RAMP } from '../pool/PoolDefaults.js';
import {
  BISECT_PRECISION,
  bisectedLevel,
  decreasedLevel,
  grownLevel,
  LEVEL_DECREASE,
  SLIPPED_DECREASE,
  growthAfter,
  latencyRatio,
  LATENCY_FLOOR_MS,
  learnedAfterCollapse,
  deliveredLevel,
  landingLevel,
  slipShare,
  startLevel,
} from './RampLevel.js';

const ramp = {
  ...DEFAULT_RAMP,
  steps: [0.01, 1],
  growth: 3,
  probeGrowth: 1.1,
  headroom: 0.05,
  latencyInflation: 3,
};

describe('RampLevel', () => {
  it('a level that never held falls by LEVEL_DECREASE, one that held and slipped only by SLIPPED_DECREASE, never below the start', () => {
    expect(decreasedLevel(ramp, 0.5)).toBeCloseTo(0.5 * LEVEL_DECREASE, 12);
    expect(decreasedLevel(ramp, 0.5, true)).toBeCloseTo(0.5 * SLIPPED_DECREASE, 12);
    expect(decreasedLevel(ramp, 0.0102, true)).toBe(0.01);
  });

  it('property: a decrease lands in [start, level), a slipped level no lower than one that never held', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.0125, max: 1, noNaN: true }), (level) => {
        const never = decreasedLevel(ramp, level);
        const slipped = decreasedLevel(ramp, level, true);
        expect(never).toBeGreaterThanOrEqual(0.01);
        expect(slipped).toBeLessThan(level);
        expect(slipped).toBeGreaterThanOrEqual(never);
      }),
    );
  });

  it('a slip on latency falls by (gate / ratio)², from SLIPPED_DECREASE just over the gate to LEVEL_DECREASE far over it', () => {
    expect(slipShare(3.02, 3)).toBe(SLIPPED_DECREASE); // a burst's queue: (3/3.02)² ≈ 0.987
    expect(slipShare(3.2, 3)).toBeCloseTo((3 / 3.2) ** 2, 12); // 0.879
    expect(slipShare(4, 3)).toBe(LEVEL_DECREASE); // (3/4)² = 0.5625: no deeper than a level that never held
    expect(slipShare(5.5, 5)).toBeCloseTo((5 / 5.5) ** 2, 12); // the gate a provider that sheds cleanly is judged by
    expect(slipShare(null, 3)).toBe(SLIPPED_DECREASE);
    expect(slipShare(Number.NaN, 3)).toBe(SLIPPED_DECREASE);
  });

  it('property: the slip share stays within [LEVEL_DECREASE, SLIPPED_DECREASE] and falls as the p95 rises', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1.01, max: 10, noNaN: true }),
        fc.double({ min: 0.5, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (gate, ratio, more) => {
          const share = slipShare(ratio, gate);
          expect(share).toBeGreaterThanOrEqual(LEVEL_DECREASE);
          expect(share).toBeLessThanOrEqual(SLIPPED_DECREASE);
          expect(slipShare(ratio + more, gate)).toBeLessThanOrEqual(share);
        },
      ),
    );
  });

  it('grows ×growth below the learned level, ×probeGrowth just above it, accelerating unless a ramp collapsed', () => {
    expect(growthAfter(ramp, 0.1, 0.5, null)).toBe(3);
    expect(growthAfter(ramp, 0.5, 0.5, null)).toBeCloseTo(1.1, 12);
    expect(growthAfter(ramp, 1, 0.5, null)).toBeCloseTo(2.2, 12);
    expect(growthAfter(ramp, 1, 0.5, null, true)).toBeCloseTo(1.1, 12);
    expect(grownLevel(ramp, 0.4, 0.5, null)).toBe(0.5); // never past the learned level in one move
  });

  it('compares latency with a baseline of at least LATENCY_FLOOR_MS', () => {
    expect(latencyRatio(30, 5)).toBeCloseTo(30 / LATENCY_FLOOR_MS, 12);
    expect(latencyRatio(600, 200)).toBe(3);
    expect(latencyRatio(null, 200)).toBeNull();
  });

  it('property: a grown level is above the held one and never above held × growth nor the top', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
        fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null }),
        fc.boolean(),
        (held, learned, ratio, collapsed) => {
          const next = grownLevel(ramp, held, learned, ratio, collapsed);
          expect(next).toBeLessThanOrEqual(Math.min(1, held * ramp.growth) + 1e-12);
          expect(next).toBeGreaterThanOrEqual(Math.min(held, 1));
        },
      ),
    );
  });

  it('property: bisection stays strictly between held and (1 − headroom) × failed, or settles', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 1.001, max: 10, noNaN: true }),
        (held, k) => {
          const failed = Math.min(1, held * k);
          const next = bisectedLevel(ramp, held, failed);
          if (next === null) return;
          expect(next).toBeGreaterThan(held * (1 + BISECT_PRECISION));
          expect(next).toBeLessThanOrEqual(failed * (1 - ramp.headroom) + 1e-12);
          expect(next).toBeLessThanOrEqual(held * ramp.growth + 1e-12);
        },
      ),
    );
  });

  it('property: a landing after a failed level is never above the level that held nor above (1 − headroom) × what was delivered, nor below the start level unless held is', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: null }),
        (held, delivered) => {
          const to = landingLevel(ramp, held, delivered);
          expect(to).toBeLessThanOrEqual(held);
          expect(to).toBeGreaterThanOrEqual(Math.min(held, startLevel(ramp)));
          if (delivered === null) expect(to).toBe(held);
          else if (to > startLevel(ramp))
            expect(to).toBeLessThanOrEqual(delivered * (1 - ramp.headroom) + 1e-12);
        },
      ),
    );
  });

  it('deliveredLevel: the level times the share of attempts that succeeded; null without attempts', () => {
    expect(deliveredLevel(0.2, 50, 100)).toBeCloseTo(0.1, 12);
    expect(deliveredLevel(0.2, 120, 100)).toBeCloseTo(0.2, 12);
    expect(deliveredLevel(0.2, 0, 100)).toBe(0);
    expect(deliveredLevel(0.2, 5, 0)).toBeNull();
  });

  it('property: the learned level falls after a collapse, whatever limit the recovery found', () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
        (learned, level, limit) => {
          const after = learnedAfterCollapse(ramp, learned, level, limit);
          expect(after).toBeLessThan(learned ?? 1);
          // never below what the collapsed level alone would teach
          expect(after).toBeGreaterThanOrEqual(learnedAfterCollapse(ramp, learned, level));
        },
      ),
    );
  });

  it('a collapse below the limit found learns from the limit (the overload came from there), one above it from itself', () => {
    // landed on 0.03 after 0.12 failed, then 0.03 collapsed in the aftermath
    expect(learnedAfterCollapse(ramp, null, 0.03, 0.12)).toBeCloseTo(0.12 * LEVEL_DECREASE, 12);
    expect(learnedAfterCollapse(ramp, 0.1, 0.03, 0.12)).toBeCloseTo(0.1 * LEVEL_DECREASE, 12);
    expect(learnedAfterCollapse(ramp, null, 0.2, 0.12)).toBeCloseTo(0.2 * LEVEL_DECREASE, 12);
    expect(learnedAfterCollapse(ramp, null, 0.03, null)).toBeCloseTo(0.03 * LEVEL_DECREASE, 12);
  });
});
