// The probe lease store on the real Redis (own key prefix) and Postgres (own database).
import { describe, expect, it } from 'vitest';
import { useLeaseStore } from '../../../../test/recovery/support/lease-store.js';
import type { LeaseOutcome, LeaseRequest } from './probe-lease.store.js';

const fx = useLeaseStore('leasestore');

let n = 0;
const request = (pool: string, overrides: Partial<LeaseRequest> = {}): LeaseRequest => ({
  pool,
  budget: { concurrency: 2, ratePerSec: 100, leaseTtlMs: 60_000 },
  breakerId: 'b1',
  group: 'g1',
  instanceId: `i${n++}`,
  epoch: 1,
  ...overrides,
});

const tokenOf = (o: LeaseOutcome): string => {
  if (o.kind !== 'granted' && o.kind !== 'held')
    throw new Error(`expected a token, got ${JSON.stringify(o)}`);
  return o.token;
};

describe('ProbeLeaseStore', () => {
  it('grants up to the concurrency, then refuses with the time until the first lease expires', async () => {
    const a = await fx.store.grant(request('p-conc'));
    const b = await fx.store.grant(request('p-conc'));
    const c = await fx.store.grant(request('p-conc'));
    expect([a.kind, b.kind]).toEqual(['granted', 'granted']);
    expect(c).toMatchObject({ kind: 'refused', reason: 'concurrency' });
    if (c.kind !== 'refused' || a.kind !== 'granted') throw new Error('unreachable');
    expect(c.retryAfterMs).toBe(a.expiresAt - c.now);
  });

  it('hands an instance the token it already holds instead of a second one', async () => {
    const req = request('p-held');
    const first = await fx.store.grant(req);
    const again = await fx.store.grant(req);
    expect(again).toMatchObject({ kind: 'held', token: tokenOf(first) });
    expect(await fx.store.held(request('p-held'))).toMatchObject({ kind: 'none' });
    // in a later epoch the old token is not handed out again (its result would be stale)
    expect(await fx.store.held({ ...req, epoch: 2 })).toMatchObject({ kind: 'none' });
  });

  it('gives fencing numbers that only go up, and releases a token exactly once', async () => {
    const req = request('p-fence', { budget: { concurrency: 1, ratePerSec: 100, leaseTtlMs: 60_000 } });
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      const o = await fx.store.grant({ ...req, instanceId: `f${i}` });
      if (o.kind !== 'granted') throw new Error(JSON.stringify(o));
      seen.push(o.fencing);
      expect(await fx.store.check(o.token)).toMatchObject({
        pool: 'p-fence',
        fencing: o.fencing,
        instanceId: `f${i}`,
      });
      expect(await fx.store.release(o.token)).toMatchObject({ fencing: o.fencing });
      expect(await fx.store.release(o.token)).toBeNull();
      expect(await fx.store.check(o.token)).toBeNull();
    }
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
    expect(new Set(seen).size).toBe(5);
  });

  it('refuses beyond the rate with the time until the oldest grant leaves the 1 s window', async () => {
    const budget = { concurrency: 10, ratePerSec: 2, leaseTtlMs: 60_000 };
    const a = await fx.store.grant(request('p-rate', { budget }));
    await fx.store.grant(request('p-rate', { budget }));
    const c = await fx.store.grant(request('p-rate', { budget }));
    expect(c).toMatchObject({ kind: 'refused', reason: 'rate' });
    if (c.kind !== 'refused' || a.kind !== 'granted') throw new Error('unreachable');
    expect(c.retryAfterMs).toBe(a.now + 1000 - c.now);
  });

  it('sweeps a lease that expired unused and excludes its holder from designation for that epoch', async () => {
    const budget = { concurrency: 1, ratePerSec: 100, leaseTtlMs: 40 };
    const got = await fx.store.grant(
      request('p-sweep', { budget, breakerId: 'b-sweep', instanceId: 'idle', epoch: 3 }),
    );
    expect(got.kind).toBe('granted');
    await new Promise((r) => setTimeout(r, 60));
    expect(await fx.store.sweep('p-sweep')).toBe(1);
    expect(await fx.store.sweep('p-sweep')).toBe(0);
    expect(await fx.store.excluded('b-sweep', 3)).toEqual(['idle']);
    expect(await fx.store.excluded('b-sweep', 4)).toEqual([]);
  });

  it("gives back every token of a breaker that left probing, and only that breaker's", async () => {
    const budget = { concurrency: 3, ratePerSec: 100, leaseTtlMs: 60_000 };
    const a1 = await fx.store.grant(request('p-shared', { budget, breakerId: 'region-a' }));
    const a2 = await fx.store.grant(request('p-shared', { budget, breakerId: 'region-a' }));
    const b1 = await fx.store.grant(request('p-shared', { budget, breakerId: 'region-b' }));
    expect(await fx.store.releaseBreaker('p-shared', 'region-a')).toBe(2);
    expect(await fx.store.check(tokenOf(a1))).toBeNull();
    expect(await fx.store.check(tokenOf(a2))).toBeNull();
    expect(await fx.store.check(tokenOf(b1))).toMatchObject({ breakerId: 'region-b' });
    const freed = await fx.store.grant(request('p-shared', { budget, breakerId: 'region-b' }));
    expect(freed.kind).toBe('granted');
  });

  it('answers null for tokens it never issued, whatever their shape', async () => {
    expect(await fx.store.check('not-a-token')).toBeNull();
    expect(await fx.store.check('A'.repeat(32))).toBeNull();
    expect(await fx.store.release('')).toBeNull();
  });

  it('after its Redis keys vanish (simulated data loss): grants nothing for one TTL, then fences above every earlier number', async () => {
    const budget = { concurrency: 1, ratePerSec: 100, leaseTtlMs: 300 };
    const before = await fx.store.grant(request('p-loss', { budget }));
    if (before.kind !== 'granted') throw new Error(JSON.stringify(before));
    const keys = await fx.redis.keys(`${fx.prefix}probe:pool:p-loss:*`);
    await fx.redis.del(...keys, fx.store.keys.token(before.token));

    const during = await fx.store.grant(request('p-loss', { budget }));
    expect(during).toMatchObject({ kind: 'refused', reason: 'learning' });
    expect(await fx.store.check(before.token)).toBeNull();

    let after: LeaseOutcome = during;
    for (let i = 0; i < 50 && after.kind === 'refused'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await fx.store.grant(request('p-loss', { budget }));
      if (after.kind === 'refused') expect(after.reason).toBe('learning');
    }
    if (after.kind !== 'granted' || during.kind !== 'refused') throw new Error(JSON.stringify(after));
    expect(after.now).toBeGreaterThanOrEqual(during.now + during.retryAfterMs);
    expect(after.fencing).toBeGreaterThan(before.fencing);
  });
});
