import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideProbeGrant, probeFairShare, type ProbeGrantInput } from './ProbeBudget.js';

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

describe('fair share of a pool between probing breakers', () => {
  it('splits the concurrency equally, at least one each, all of it to a lone breaker', () => {
    expect(probeFairShare(4, 1)).toBe(4);
    expect(probeFairShare(4, 0)).toBe(4);
    expect(probeFairShare(4, 2)).toBe(2);
    expect(probeFairShare(4, 3)).toBe(1);
    expect(probeFairShare(1, 5)).toBe(1);
  });

  it('refuses a breaker at its share until its first lease expires (T−1 ms / T), before the rate', () => {
    const fair = (expiries: number[]) => ({ ...base, fairShare: { cap: 1, groupLeaseExpiries: expiries } });
    expect(decideProbeGrant({ ...fair([10_500]), liveLeases: 1 })).toEqual({
      grant: false,
      reason: 'fair_share',
      retryAfterMs: 500,
    });
    // a lease that expired at now no longer counts
    expect(decideProbeGrant(fair([10_000]))).toEqual({ grant: true });
    expect(decideProbeGrant(fair([10_001]))).toMatchObject({ grant: false, reason: 'fair_share' });
  });

  it('property: two breakers asking at random never hold more than their shares, and the pool never more than its budget', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.record({ who: fc.integer({ min: 0, max: 1 }), gap: fc.integer({ min: 0, max: 700 }) }), {
          maxLength: 60,
        }),
        (concurrency, asks) => {
          const budget2 = { concurrency, ratePerSec: 100, leaseTtlMs: 1000 };
          const cap = probeFairShare(concurrency, 2);
          const leases: { who: number; expiresAt: number }[] = [];
          let now = 0;
          for (const a of asks) {
            now += a.gap;
            const live = leases.filter((l) => l.expiresAt > now);
            const d = decideProbeGrant({
              now,
              liveLeases: live.length,
              budget: budget2,
              recentGrantTimes: [],
              blockedUntil: 0,
              fairShare: {
                cap,
                groupLeaseExpiries: live.filter((l) => l.who === a.who).map((l) => l.expiresAt),
              },
            });
            if (d.grant) leases.push({ who: a.who, expiresAt: now + budget2.leaseTtlMs });
            const after = leases.filter((l) => l.expiresAt > now);
            if (after.length > concurrency) return false;
            if (after.filter((l) => l.who === a.who).length > cap) return false;
          }
          return true;
        },
      ),
    );
  });
});
