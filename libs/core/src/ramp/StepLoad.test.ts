import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../pool/PoolConfig.js';
import { stepBudget, type RampPosition } from './Allowance.js';
import { describeLoad, fleetDemand, instanceDemand, stepLoad } from './StepLoad.js';
import { twoClassPool } from './twoClassPool.test-support.js';

/** The levels these tests divide: the grid pools used to step through (docs/api.md's example). */
const GRID = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0];

/** The ramp position of the k-th grid level: class k joins at move k. */
function gridAt(_p: PoolConfig, k: number): RampPosition {
  return { step: k, level: GRID[k] ?? Number.NaN };
}

const LAST = 5;

describe('fleetDemand', () => {
  it('sums each class over the fleet, ignoring non-positive and non-finite figures', () => {
    expect(
      fleetDemand([
        { demand: { standard: 2, long_context: 1 } },
        { demand: { standard: 3.5, long_context: -1 } },
        { demand: { standard: Number.NaN, batch: 4 } },
        { demand: {} },
      ]),
    ).toEqual({ standard: 5.5, long_context: 1, batch: 4 });
  });
});

describe('stepLoad', () => {
  it('is binding only when demand exceeds the step rate: at the rate it is not, an ulp above it is', () => {
    expect(
      stepLoad(twoClassPool(), gridAt(twoClassPool(), LAST), { standard: 500, long_context: 20 }).binding,
    ).toBe(false);
    expect(stepLoad(twoClassPool(), gridAt(twoClassPool(), LAST), { standard: 500.001 }).binding).toBe(true);
    expect(stepLoad(twoClassPool(), gridAt(twoClassPool(), LAST), { long_context: 20.001 }).binding).toBe(
      true,
    );
    expect(stepLoad(twoClassPool(), gridAt(twoClassPool(), LAST), {}).binding).toBe(false);
  });

  it('judges only the classes admitted at the step, and reports demand against budget', () => {
    const load = stepLoad(twoClassPool(), gridAt(twoClassPool(), 0), { standard: 3, long_context: 1000 });
    expect(load).toEqual({ classes: { standard: { demand: 3, budget: 5 } }, binding: false });
    expect(describeLoad(load)).toBe('standard 3/s of 5/s');
  });

  it('property: binding iff some admitted class wants more than its step rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: LAST }),
        fc.double({ min: 0, max: 2000, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (step, standard, long) => {
          const p = twoClassPool();
          const load = stepLoad(p, gridAt(p, step), { standard, long_context: long });
          const budget = stepBudget(p, gridAt(p, step));
          const over = Object.entries(budget).some(
            ([cls, b]) => (cls === 'standard' ? standard : long) > b.ratePerSec,
          );
          expect(load.binding).toBe(over);
          expect(Object.keys(load.classes).sort()).toEqual(Object.keys(budget).sort());
        },
      ),
    );
  });
});

describe('instanceDemand', () => {
  it('sums the classes fleetDemand would count, ignoring non-finite and non-positive figures', () => {
    expect(instanceDemand({ standard: 2, long_context: 0.5, bad: Number.NaN, neg: -3 })).toBe(2.5);
    expect(instanceDemand({})).toBe(0);
  });
});
