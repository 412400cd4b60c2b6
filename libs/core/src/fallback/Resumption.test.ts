import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOST_AFTER_BEATS } from './FallbackRules.js';
import {
  capToHolding,
  fallbackSpell,
  fallbackSpellToleranceMs,
  resuming,
  sameFallbackSpell,
} from './Resumption.js';

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

describe('fallbackSpell', () => {
  const timing = { leaseTtlMs: 5000, heartbeatIntervalMs: 1000 };
  const tolerance = 5000 + DEFAULT_LOST_AFTER_BEATS * 1000;

  it('tolerates a lease TTL and the beats to call control lost', () => {
    expect(fallbackSpellToleranceMs(timing)).toBe(tolerance);
  });

  it('a spell shorter than a lease TTL is no alert (T−1 / T); nor is a report without a duration', () => {
    expect(fallbackSpell({ durationMs: 4999 }, 100_000, undefined, timing)).toBeNull();
    expect(fallbackSpell({ durationMs: Number.NaN }, 100_000, undefined, timing)).toBeNull();
    expect(fallbackSpell({ durationMs: 5000 }, 100_000, undefined, timing)).toEqual({
      start: 95_000,
      announce: true,
    });
  });

  it('a start within the tolerance of the last announced is the same spell: kept at the earliest, not announced', () => {
    const now = 100_000;
    expect(fallbackSpell({ durationMs: 8000 }, now, 92_000 - tolerance, timing)).toEqual({
      start: 92_000 - tolerance,
      announce: false,
    });
    expect(fallbackSpell({ durationMs: 8000 }, now, 91_000, timing)).toEqual({
      start: 91_000,
      announce: false,
    });
    expect(fallbackSpell({ durationMs: 8000 }, now, 92_000 - tolerance - 1, timing)).toEqual({
      start: 92_000,
      announce: true,
    });
  });
});
