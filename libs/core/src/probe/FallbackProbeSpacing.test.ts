import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng, type Rng } from '../random/Rng.js';
import { fallbackProbeSpacingMs } from './FallbackProbeSpacing.js';

/** a fixed Rng (fake: always returns `value`), to pin the spacing's ends */
const fakeRngReturning = (value: number): Rng => ({ next: () => value });

describe('fallbackProbeSpacingMs', () => {
  it('spans half to one and a half intervals of the region share (fake Rng at 0 and just below 1)', () => {
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(0))).toBe(250);
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(0.5))).toBe(500);
    expect(fallbackProbeSpacingMs(2, fakeRngReturning(0.999))).toBeCloseTo(749.5, 9);
  });

  it('never probes at a zero, negative or non-finite rate', () => {
    for (const rate of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(fallbackProbeSpacingMs(rate, fakeRngReturning(0.5))).toBe(Number.POSITIVE_INFINITY);
    }
  });

  it('property: within [0.5, 1.5) intervals and the same for the same seed', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1000, noNaN: true }), fc.integer(), (rate, seed) => {
        const ms = fallbackProbeSpacingMs(rate, seededRng(seed));
        const interval = 1000 / rate;
        expect(ms).toBeGreaterThanOrEqual(0.5 * interval);
        expect(ms).toBeLessThan(1.5 * interval);
        expect(fallbackProbeSpacingMs(rate, seededRng(seed))).toBe(ms);
      }),
    );
  });
});
