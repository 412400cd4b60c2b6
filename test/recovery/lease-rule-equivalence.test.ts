// The Redis Lua lease script must decide exactly as core `decideProbeGrant`. Random sequences of
// grants (three breakers of two groups sharing the pool, with or without a per-group fair-share
// cap), releases and pauses run
// against the real store; every answer is replayed through the core rule on a model of what the
// store holds, at the Redis clock reading the script reported.
import { decideProbeGrant, type ProbeGrantDecision } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useLeaseStore } from './support/lease-store.js';

type Op =
  { kind: 'grant'; breaker: number } | { kind: 'release'; pick: number } | { kind: 'pause'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 2 }).map<Op>((breaker) => ({ kind: 'grant', breaker })) },
  { weight: 2, arbitrary: fc.nat(100).map<Op>((pick) => ({ kind: 'release', pick })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 60 }).map<Op>((ms) => ({ kind: 'pause', ms })) },
);

const budgetArb = fc.record({
  concurrency: fc.integer({ min: 1, max: 4 }),
  ratePerSec: fc.integer({ min: 1, max: 4 }),
  leaseTtlMs: fc.integer({ min: 30, max: 250 }),
});

const fx = useLeaseStore('leaserule');

describe('Lua lease script vs core decideProbeGrant', () => {
  it('decides every request of random grant/release/pause sequences as the core rule does', async () => {
    let run = 0;
    let compared = 0;
    let fairShareRefusals = 0;
    await fc.assert(
      // breakers b0 and b1 belong to group g0, b2 to g1; with a cap, each group may hold at most its share
      fc.asyncProperty(
        budgetArb,
        fc.constantFrom(0, 1, 1, 2),
        fc.array(opArb, { minLength: 10, maxLength: 30 }),
        async (budget, cap, ops) => {
          const pool = `eq-${run++}`;
          const leases = new Map<string, { expiresAt: number; group: string }>(); // as the store holds them
          const grants: number[] = [];
          let instance = 0;
          for (const op of ops) {
            if (op.kind === 'pause') {
              await new Promise((r) => setTimeout(r, op.ms));
            } else if (op.kind === 'release') {
              const tokens = [...leases.keys()];
              if (tokens.length === 0) continue;
              const token = tokens[op.pick % tokens.length]!;
              await fx.store.release(token);
              leases.delete(token);
            } else {
              const breakerId = `b${op.breaker}`;
              const group = op.breaker < 2 ? 'g0' : 'g1';
              const got = await fx.store.grant({
                pool,
                budget,
                breakerId,
                group,
                instanceId: `i${instance++}`,
                epoch: 1,
                ...(cap > 0 ? { fairShareCap: cap } : {}),
              });
              if (got.kind !== 'granted' && got.kind !== 'refused') throw new Error(`unexpected ${got.kind}`);
              const now = got.now;
              const live = [...leases.values()].filter((l) => l.expiresAt > now);
              const expected: ProbeGrantDecision = decideProbeGrant({
                now,
                liveLeases: live.length,
                ...(live.length > 0 ? { nextLeaseExpiryAt: Math.min(...live.map((l) => l.expiresAt)) } : {}),
                budget,
                recentGrantTimes: grants,
                blockedUntil: 0,
                ...(cap > 0
                  ? {
                      fairShare: {
                        cap,
                        groupLeaseExpiries: live.filter((l) => l.group === group).map((l) => l.expiresAt),
                      },
                    }
                  : {}),
              });
              const actual: ProbeGrantDecision =
                got.kind === 'refused'
                  ? { grant: false, reason: got.reason, retryAfterMs: got.retryAfterMs }
                  : { grant: true };
              expect(actual).toEqual(expected);
              compared++;
              if (got.kind === 'refused' && got.reason === 'fair_share') fairShareRefusals++;
              if (got.kind === 'granted') {
                expect(got.expiresAt).toBe(now + budget.leaseTtlMs);
                leases.set(got.token, { expiresAt: got.expiresAt, group });
                grants.push(now);
              }
            }
          }
        },
      ),
      { numRuns: 20, seed: 20261202 },
    );
    expect(compared).toBeGreaterThan(100);
    // the fair-share edge was reached, not only the pool's limits
    expect(fairShareRefusals).toBeGreaterThan(5);
  });
});
