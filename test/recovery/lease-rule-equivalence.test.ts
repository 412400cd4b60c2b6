// The Redis Lua lease script must decide exactly as core `decideProbeGrant`. Random sequences of
// grants, releases and pauses run against the real store; every answer is replayed through the
// core rule on a model of what the store holds, at the Redis clock reading the script reported.
import { decideProbeGrant, type ProbeGrantDecision } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useLeaseStore } from './support/lease-store.js';

type Op = { kind: 'grant' } | { kind: 'release'; pick: number } | { kind: 'pause'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Op>({ kind: 'grant' }) },
  { weight: 2, arbitrary: fc.nat(100).map<Op>((pick) => ({ kind: 'release', pick })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 60 }).map<Op>((ms) => ({ kind: 'pause', ms })) },
);

const budgetArb = fc.record({
  concurrency: fc.integer({ min: 1, max: 3 }),
  ratePerSec: fc.integer({ min: 1, max: 4 }),
  leaseTtlMs: fc.integer({ min: 30, max: 250 }),
});

const fx = useLeaseStore('leaserule');

describe('Lua lease script vs core decideProbeGrant', () => {
  it('decides every request of random grant/release/pause sequences as the core rule does', async () => {
    let run = 0;
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(budgetArb, fc.array(opArb, { minLength: 10, maxLength: 30 }), async (budget, ops) => {
        const pool = `eq-${run++}`;
        const leases = new Map<string, number>(); // token -> expiresAt, as the store holds them
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
            const got = await fx.store.grant({
              pool,
              budget,
              breakerId: 'b',
              instanceId: `i${instance++}`,
              epoch: 1,
            });
            if (got.kind !== 'granted' && got.kind !== 'refused') throw new Error(`unexpected ${got.kind}`);
            const now = got.now;
            const live = [...leases.values()].filter((exp) => exp > now);
            const expected: ProbeGrantDecision = decideProbeGrant({
              now,
              liveLeases: live.length,
              ...(live.length > 0 ? { nextLeaseExpiryAt: Math.min(...live) } : {}),
              budget,
              recentGrantTimes: grants,
              blockedUntil: 0,
            });
            const actual: ProbeGrantDecision =
              got.kind === 'refused'
                ? { grant: false, reason: got.reason, retryAfterMs: got.retryAfterMs }
                : { grant: true };
            expect(actual).toEqual(expected);
            compared++;
            if (got.kind === 'granted') {
              expect(got.expiresAt).toBe(now + budget.leaseTtlMs);
              leases.set(got.token, got.expiresAt);
              grants.push(now);
            }
          }
        }
      }),
      { numRuns: 12, seed: 20261202 },
    );
    expect(compared).toBeGreaterThan(100);
  });
});
