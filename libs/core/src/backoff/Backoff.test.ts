import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRng, type Rng } from '../random/Rng.js';
import { backoffDelayMs, type BackoffOptions } from './Backoff.js';

const fixed = (value: number): Rng => ({ next: () => value });

describe('backoffDelayMs', () => {
  const opts: BackoffOptions = { baseMs: 1_000, maxMs: 30_000, multiplier: 2, jitter: 0 };

  it('grows exponentially from the base and stops at the max', () => {
    const rng = fixed(0.5);
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelayMs(a, opts, rng))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(backoffDelayMs(10_000, opts, rng)).toBe(30_000);
  });

  it('randomises the jittered fraction downward from the delay', () => {
    const jittered = { ...opts, jitter: 0.5 };
    expect(backoffDelayMs(1, jittered, fixed(0))).toBe(2_000);
    expect(backoffDelayMs(1, jittered, fixed(0.5))).toBe(1_500);
    expect(backoffDelayMs(1, jittered, fixed(0.999999))).toBeCloseTo(1_000, 2);
  });

  const optsArb = fc.record({
    baseMs: fc.integer({ min: 1, max: 60_000 }),
    maxMs: fc.integer({ min: 1, max: 600_000 }),
    multiplier: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  it('always lies in [d·(1−jitter), d] with d = min(max, base·mult^attempt)', () => {
    fc.assert(
      fc.property(optsArb, fc.integer({ min: 0, max: 2_000 }), fc.integer(), (o, attempt, seed) => {
        const d = Math.min(o.maxMs, o.baseMs * Math.pow(o.multiplier, attempt));
        const delay = backoffDelayMs(attempt, o, seededRng(seed));
        expect(delay).toBeLessThanOrEqual(d);
        expect(delay).toBeGreaterThanOrEqual(d * (1 - o.jitter) - 1e-9);
        expect(delay).toBeLessThanOrEqual(o.maxMs);
        expect(Number.isFinite(delay)).toBe(true);
      }),
    );
  });

  it('never shrinks the ceiling as attempts grow (without jitter the delay is non-decreasing)', () => {
    fc.assert(
      fc.property(optsArb, fc.integer({ min: 0, max: 100 }), (o, attempt) => {
        const noJitter = { ...o, jitter: 0 };
        const rng = fixed(0);
        expect(backoffDelayMs(attempt + 1, noJitter, rng)).toBeGreaterThanOrEqual(
          backoffDelayMs(attempt, noJitter, rng),
        );
      }),
    );
  });
});
