import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controlLost, fallbackConduct, fallbackProbeRate } from './FallbackRules.js';

describe('controlLost', () => {
  it('after lostAfterBeats failed heartbeats, or when the plan runs out, whichever first (T−1 / T)', () => {
    const base = { lostAfterBeats: 3, now: 1000, planValidUntil: 5000 };
    expect(controlLost({ ...base, failedBeats: 2 })).toBe(false);
    expect(controlLost({ ...base, failedBeats: 3 })).toBe(true);
    expect(controlLost({ ...base, failedBeats: 0, now: 4999 })).toBe(false);
    expect(controlLost({ ...base, failedBeats: 0, now: 5000 })).toBe(true);
    expect(controlLost({ ...base, failedBeats: 0, planValidUntil: Number.POSITIVE_INFINITY })).toBe(false);
  });

  it('a threshold below one still needs a failed heartbeat', () => {
    expect(controlLost({ failedBeats: 0, lostAfterBeats: 0, now: 0, planValidUntil: 10 })).toBe(false);
    expect(controlLost({ failedBeats: 1, lostAfterBeats: 0, now: 0, planValidUntil: 10 })).toBe(true);
  });
});

describe('fallbackConduct', () => {
  it('CLOSED keeps local breakers; a local trip is owners-only', () => {
    expect(fallbackConduct('closed', false, false)).toBe('local');
    expect(fallbackConduct(null, false, false)).toBe('local');
    expect(fallbackConduct('closed', true, false)).toBe('owners-only');
  });

  it('RAMPING keeps the last allowance only while it is valid; OPEN and PROBING pause', () => {
    expect(fallbackConduct('ramping', false, true)).toBe('allowance');
    expect(fallbackConduct('ramping', true, true)).toBe('allowance');
    expect(fallbackConduct('ramping', false, false)).toBe('owners-only');
    for (const s of ['open', 'probing'] as const) {
      expect(fallbackConduct(s, false, true)).toBe('owners-only');
      expect(fallbackConduct(s, false, false)).toBe('owners-only');
    }
  });
});

describe('fallbackProbeRate', () => {
  const plan = (probeOwner: boolean, share = 0.1, live = 34, owners = 2) => ({
    probeOwner,
    regionShare: { ratePerSec: share },
    regionLive: live,
    owners,
  });

  it('owners split the share; ordinary instances wait until the maximum isolation (T−1 / T)', () => {
    expect(fallbackProbeRate(plan(true), 0, 60_000)).toBeCloseTo(0.05, 12);
    expect(fallbackProbeRate(plan(false), 59_999, 60_000)).toBe(0);
    expect(fallbackProbeRate(plan(false), 60_000, 60_000)).toBeCloseTo(0.1 / 34, 12);
    expect(fallbackProbeRate(plan(true), 60_000, 60_000)).toBeCloseTo(0.1 / 34, 12);
  });

  it('nothing without a plan, a share, or live instances', () => {
    expect(fallbackProbeRate(null, 1e9, 60_000)).toBe(0);
    expect(fallbackProbeRate(plan(true, 0), 0, 60_000)).toBe(0);
    expect(fallbackProbeRate(plan(false, 1, 0), 1e9, 60_000)).toBe(0);
    expect(fallbackProbeRate(plan(true, Number.NaN), 0, 60_000)).toBe(0);
  });

  it('property: never above the region share, and never negative', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.double({ min: -1, max: 100, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        fc.integer({ min: 0, max: 200_000 }),
        (owner, share, live, owners, isolated) => {
          const p = {
            probeOwner: owner,
            regionShare: { ratePerSec: share },
            regionLive: live,
            ...(owners === undefined ? {} : { owners }),
          };
          const r = fallbackProbeRate(p, isolated, 60_000);
          expect(r).toBeGreaterThanOrEqual(0);
          expect(r).toBeLessThanOrEqual(Math.max(0, share));
        },
      ),
    );
  });
});
