import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng, type Rng } from '../random/Rng.js';
import { FallbackPacer } from './FallbackPacer.js';

/** a fixed Rng (fake: always `value`); 0 makes every Poisson gap 0, so only the budget paces */
const fakeRng = (value: number): Rng => ({ next: () => value });

describe('FallbackPacer', () => {
  it('starts with no budget: the first call waits one interval of its rate (T−1 / T)', () => {
    const p = new FallbackPacer(0);
    p.setRate(0, 0.5, fakeRng(0));
    expect(p.tryTake(1999, fakeRng(0))).toBe(false);
    expect(p.msUntilNext(1999)).toBe(1);
    expect(p.tryTake(2000, fakeRng(0))).toBe(true);
    expect(p.tryTake(2000, fakeRng(0))).toBe(false);
    expect(p.tryTake(3999, fakeRng(0))).toBe(false);
    expect(p.tryTake(4000, fakeRng(0))).toBe(true);
  });

  it('holds at most one call after a quiet spell (no burst)', () => {
    const p = new FallbackPacer(0);
    p.setRate(0, 1, fakeRng(0));
    expect(p.tryTake(60_000, fakeRng(0))).toBe(true);
    expect(p.tryTake(60_000, fakeRng(0))).toBe(false);
  });

  it('waits for the Poisson time even with budget in hand', () => {
    const p = new FallbackPacer(0);
    p.setRate(0, 1, fakeRng(1 - Math.exp(-5))); // first gap: 5 s
    expect(p.tryTake(4999, fakeRng(0))).toBe(false);
    expect(p.tryTake(5000, fakeRng(0))).toBe(true);
  });

  it('rate 0 never takes', () => {
    const p = new FallbackPacer(0);
    p.setRate(0, 0, fakeRng(0));
    expect(p.tryTake(1e9, fakeRng(0))).toBe(false);
    expect(p.msUntilNext(1e9)).toBe(Number.POSITIVE_INFINITY);
  });

  it('property: calls taken by any time never exceed the rate integrated since the start', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 5000 }),
            rate: fc.option(fc.double({ min: 0, max: 5, noNaN: true })),
          }),
          {
            maxLength: 200,
          },
        ),
        (seed, steps) => {
          const rng = seededRng(seed);
          const p = new FallbackPacer(0);
          p.setRate(0, 1, rng);
          let now = 0;
          let rate = 1;
          let accrued = 0;
          let taken = 0;
          for (const s of steps) {
            accrued += (rate * s.dt) / 1000;
            now += s.dt;
            if (s.rate !== null) {
              p.setRate(now, s.rate, rng);
              rate = s.rate;
            }
            if (p.tryTake(now, rng)) taken += 1;
            expect(taken).toBeLessThanOrEqual(accrued + 1e-9);
          }
        },
      ),
    );
  });

  it('property: over a long spell the rate taken is within 60–100 % of the rate asked (Poisson gated by the budget)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0.05, max: 2, noNaN: true }), (seed, rate) => {
        const rng = seededRng(seed);
        const p = new FallbackPacer(0);
        p.setRate(0, rate, rng);
        const horizon = (4000 / rate) * 1000; // 4,000 intervals
        let taken = 0;
        for (let t = 0; t <= horizon; t += 50 / rate) if (p.tryTake(t, rng)) taken += 1;
        expect(taken / 4000).toBeGreaterThan(0.6);
        expect(taken / 4000).toBeLessThanOrEqual(1);
      }),
      { numRuns: 20 },
    );
  });
});
