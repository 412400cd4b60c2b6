import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng, type Rng } from '../random/Rng.js';
import { fallbackProbeSpacingMs } from './FallbackProbeSpacing.js';

/** a fixed Rng (fake: always returns `value`), to pin the spacing's quantiles */
const fakeRngReturning = (value: number): Rng => ({ next: () => value });

describe('fallbackProbeSpacingMs', () => {
  it('is the exponential quantile of the draw (fake Rng at 0, 1 − 1/e and 0.5)', () => {
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(0))).toBe(0);
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(1 - Math.exp(-1)))).toBeCloseTo(500, 9);
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(0.5))).toBeCloseTo(500 * Math.LN2, 9);
  });

  it('never probes at a zero, negative or non-finite rate', () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(fallbackProbeSpacingMs(rate, fakeRngReturning(0.5))).toBe(Number.POSITIVE_INFINITY);
    }
  });

  it('property: finite, non-negative, the same for the same seed', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1000, noNaN: true }), fc.integer(), (rate, seed) => {
        const ms = fallbackProbeSpacingMs(rate, seededRng(seed));
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(ms)).toBe(true);
        expect(fallbackProbeSpacingMs(rate, seededRng(seed))).toBe(ms);
      }),
    );
  });

  it('property: the mean gap over many draws is one interval within 10 %', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 100, noNaN: true }), fc.integer(), (rate, seed) => {
        const rng = seededRng(seed);
        let sum = 0;
        const n = 4000;
        for (let i = 0; i < n; i++) sum += fallbackProbeSpacingMs(rate, rng);
        expect(sum / n / (1000 / rate)).toBeGreaterThan(0.9);
        expect(sum / n / (1000 / rate)).toBeLessThan(1.1);
      }),
      { numRuns: 30 },
    );
  });
});
