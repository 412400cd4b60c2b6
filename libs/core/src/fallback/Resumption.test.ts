import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capToHolding, resuming, sameFallbackSpell } from './Resumption.js';

describe('resuming', () => {
  it('for one lease TTL from the process start (T−1 / T)', () => {
    expect(resuming(1000, 1000, 5000)).toBe(true);
    expect(resuming(5999, 1000, 5000)).toBe(true);
    expect(resuming(6000, 1000, 5000)).toBe(false);
    expect(resuming(999, 1000, 5000)).toBe(false);
  });
});

describe('capToHolding', () => {
  const a = {
    standard: { ratePerSec: 2, burst: 2, concurrency: 2 },
    long: { ratePerSec: 1, burst: 1, concurrency: 1 },
  };

  it('grants nothing beyond what is reported held; nothing without a report', () => {
    expect(capToHolding(a, { holding: { standard: 0.5 } })).toEqual({
      standard: { ratePerSec: 0.5, burst: 2, concurrency: 2 },
    });
    expect(capToHolding(a, { holding: { standard: 9, long: 0 } })).toEqual({ standard: a.standard });
    expect(capToHolding(a, undefined)).toEqual({});
    expect(capToHolding(a, {})).toEqual({});
  });

  it('property: each class at most min(granted, held), never a class not held', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.double({ min: 0, max: 10, noNaN: true })),
        fc.dictionary(fc.constantFrom('a', 'b', 'd'), fc.double({ min: -1, max: 10, noNaN: true })),
        (granted, held) => {
          const allowance = Object.fromEntries(
            Object.entries(granted).map(([c, r]) => [c, { ratePerSec: r, burst: 1, concurrency: 1 }]),
          );
          const out = capToHolding(allowance, { holding: held });
          for (const [c, x] of Object.entries(out)) {
            expect(held[c]).toBeGreaterThan(0);
            expect(x.ratePerSec).toBeLessThanOrEqual(Math.min(granted[c]!, held[c]!));
          }
        },
      ),
    );
  });
});

describe('sameFallbackSpell', () => {
  it('starts within the tolerance are one spell', () => {
    expect(sameFallbackSpell(10_000, 14_000, 5000)).toBe(true);
    expect(sameFallbackSpell(10_000, 15_001, 5000)).toBe(false);
  });
});
