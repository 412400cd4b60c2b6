import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideProbeGrant, type ProbeGrantInput } from './ProbeBudget.js';

const budget = { concurrency: 2, ratePerSec: 2, leaseTtlMs: 5000 };
const base: ProbeGrantInput = { now: 10_000, liveLeases: 0, budget, recentGrantTimes: [], blockedUntil: 0 };

describe('decideProbeGrant', () => {
  it('grants when under every limit', () => {
    expect(decideProbeGrant(base)).toEqual({ grant: true });
  });

  it('refuses before blockedUntil and grants from it on (T−1 ms / T)', () => {
    expect(decideProbeGrant({ ...base, blockedUntil: 10_001 })).toEqual({
      grant: false,
      reason: 'learning',
      retryAfterMs: 1,
    });
    expect(decideProbeGrant({ ...base, blockedUntil: 10_000 })).toEqual({ grant: true });
  });

  it('refuses at the concurrency limit until the first lease expires', () => {
    expect(decideProbeGrant({ ...base, liveLeases: 2, nextLeaseExpiryAt: 12_500 })).toEqual({
      grant: false,
      reason: 'concurrency',
      retryAfterMs: 2500,
    });
    expect(decideProbeGrant({ ...base, liveLeases: 2 })).toMatchObject({
      reason: 'concurrency',
      retryAfterMs: 5000,
    });
    expect(decideProbeGrant({ ...base, liveLeases: 1 })).toEqual({ grant: true });
  });

  it('counts a grant against the rate for exactly 1 s (T−1 ms / T+1 ms)', () => {
    const recentGrantTimes = [9_200, 9_500];
    expect(decideProbeGrant({ ...base, now: 10_199, recentGrantTimes })).toEqual({
      grant: false,
      reason: 'rate',
      retryAfterMs: 1,
    });
    expect(decideProbeGrant({ ...base, now: 10_200, recentGrantTimes })).toEqual({ grant: true });
    expect(decideProbeGrant({ ...base, now: 10_201, recentGrantTimes })).toEqual({ grant: true });
  });

  it('ignores grant times outside the window, including ones in the future', () => {
    expect(decideProbeGrant({ ...base, recentGrantTimes: [1_000, 8_999, 10_500] })).toEqual({ grant: true });
  });

  it('property: a fleet asking at random never holds more than concurrency, nor gets more than rate per 1 s', () => {
    const step = fc.record({
      dt: fc.integer({ min: 0, max: 700 }),
      ask: fc.boolean(),
      releaseIndex: fc.nat(10),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4000 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.array(step, { minLength: 20, maxLength: 200, size: 'max' }),
        (concurrency, ratePerSec, leaseTtlMs, blockedUntil, steps) => {
          let now = 0;
          let leases: number[] = []; // expiresAt
          const grants: number[] = [];
          for (const s of steps) {
            now += s.dt;
            leases = leases.filter((e) => now < e);
            if (!s.ask) {
              if (leases.length > 0) leases.splice(s.releaseIndex % leases.length, 1); // result reported
              continue;
            }
            const d = decideProbeGrant({
              now,
              liveLeases: leases.length,
              nextLeaseExpiryAt: leases.length > 0 ? Math.min(...leases) : undefined,
              budget: { concurrency, ratePerSec, leaseTtlMs },
              recentGrantTimes: grants.filter((g) => g > now - 1000),
              blockedUntil,
            } as ProbeGrantInput);
            if (d.grant) {
              leases.push(now + leaseTtlMs);
              grants.push(now);
              expect(now).toBeGreaterThanOrEqual(blockedUntil);
            } else {
              expect(d.retryAfterMs).toBeGreaterThan(0);
            }
            expect(leases.length).toBeLessThanOrEqual(concurrency);
          }
          for (const g of grants) {
            expect(grants.filter((x) => x > g - 1000 && x <= g).length).toBeLessThanOrEqual(ratePerSec);
          }
        },
      ),
    );
  });
});
