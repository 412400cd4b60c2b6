/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
// Redis loses its data while probe tokens are out (a private redis-server, killed with SIGKILL and
// started again empty; the shared Redis is never touched). The replicas must then grant nothing for
// one lease TTL, never oversubscribe the budget, and hand out fencing numbers above every earlier
// one, so a fencing-aware provider refuses the tokens granted before the loss.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivateRedis, type PrivateRedis } from '../support/own-redis.js';
import { startFencingProvider, type FencingProvider } from './support/fencing-provider.js';
import { driveToProbing, fleetKey, liveLease, putPool } from './support/fleet.js';
import { call, startReplicas, type ReplicaSet } from './support/replicas.js';

const LEASE_TTL_MS = 3000;
const CONCURRENCY = 2;

let redis: PrivateRedis;
let set: ReplicaSet;
let bases: string[];
let provider: FencingProvider;

beforeAll(async () => {
  redis = await startPrivateRedis();
  set = await startReplicas(2, { REDIS_URL: redis.url });
  bases = set.replicas.map((r) => r.url);
  provider = await startFencingProvider();
});

afterAll(async () => {
  await set?.stop();
  await redis?.stop();
  await provider?.close();
});

describe('probe leases across a Redis data loss', () => {
  it('freezes grants for one lease TTL, stays within the budget, and fences off tokens from before the loss', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const group = `loss-${tag}`;
    const dependency = `llm-${tag}`;
    const key = await fleetKey(bases[0]!, [group]);
    await putPool(bases[0]!, `pool-${tag}`, {
      dependencies: [dependency],
      probe: { concurrency: CONCURRENCY, ratePerSec: 1000, leaseTtlMs: LEASE_TTL_MS, cooldownMs: 200 },
    });
    await driveToProbing(bases, key, group, dependency, ['w0', 'w1', 'w2', 'w3']);

    const lease = (i: number, instanceId: string) =>
      liveLease(bases[i % bases.length]!, key, group, dependency, instanceId);
    const a = await lease(0, 'before-a');
    const b = await lease(1, 'before-b');
    expect([a.status, b.status]).toEqual([201, 201]);
    expect((await lease(0, 'before-c')).status).toBe(429);
    expect(await provider.call(a.json.fencing)).toBe(200);

    await redis.kill();
    await redis.start();
    const restartedAt = Date.now();

    // ask until something is granted: every answer before then is a refusal, never a token
    const answers: { at: number; status: number; json: any }[] = [];
    let granted: { at: number; status: number; json: any } | undefined;
    for (let i = 0; i < 200 && !granted; i++) {
      const r = await lease(i, `after-${i}`);
      const answer = { at: Date.now(), status: r.status, json: r.json };
      answers.push(answer);
      if (r.status === 201) granted = answer;
      else await new Promise((res) => setTimeout(res, 100));
    }
    if (!granted) throw new Error(`nothing granted after the loss: ${JSON.stringify(answers.slice(-3))}`);
    const refusals = answers.filter((x) => x !== granted);
    expect(refusals.every((x) => x.status === 429 || x.status === 503)).toBe(true);
    expect(refusals.some((x) => x.status === 429 && x.json.reason === 'learning')).toBe(true);
    expect(granted.at - restartedAt).toBeGreaterThanOrEqual(LEASE_TTL_MS);
    expect(granted.json.fencing).toBeGreaterThan(Math.max(a.json.fencing, b.json.fencing));

    // after the freeze, a burst over both replicas still gets at most the budget (one is out already)
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => lease(i, `burst-${i}`)));
    const burstTokens = burst.filter((r) => r.status === 201).map((r) => r.json.token as string);
    expect(1 + new Set(burstTokens).size).toBeLessThanOrEqual(CONCURRENCY);

    // the tokens from before the loss are gone for the controller and stale for the provider
    const staleResult = await call(
      bases[0]!,
      'POST',
      `/v1/probes/${a.json.token}/result`,
      { outcome: 'success', latencyMs: 5 },
      key,
    );
    expect(staleResult.status).toBe(409);
    expect(await provider.call(granted.json.fencing)).toBe(200);
    expect(await provider.call(a.json.fencing)).toBe(409);
    expect(await provider.call(b.json.fencing)).toBe(409);
    expect(provider.honoured).toEqual([a.json.fencing, granted.json.fencing]);
    expect(provider.refused).toEqual([a.json.fencing, b.json.fencing]);
  });

  it("a token whose lease expired is fenced off: the next holder's calls win, the stale holder is refused everywhere", async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const group = `expiry-${tag}`;
    const dependency = `llm-${tag}`;
    const key = await fleetKey(bases[0]!, [group]);
    await putPool(bases[1]!, `pool-${tag}`, {
      dependencies: [dependency],
      probe: { concurrency: 1, ratePerSec: 1000, leaseTtlMs: 400, cooldownMs: 200 },
    });
    await driveToProbing(bases, key, group, dependency, ['w0', 'w1', 'w2', 'w3']);
    const own = await startFencingProvider();
    try {
      const lease = (i: number, instanceId: string) =>
        liveLease(bases[i % bases.length]!, key, group, dependency, instanceId);
      const slow = await lease(0, 'slow-prober');
      expect(slow.status).toBe(201);
      // the slow prober stalls past its lease; the next instance gets the slot once it expired
      let next = await lease(1, 'next-prober');
      for (let i = 0; i < 50 && next.status !== 201; i++) {
        expect(next.status).toBe(429);
        await new Promise((r) => setTimeout(r, Math.min(500, next.json.retryAfterMs)));
        next = await lease(i, 'next-prober');
      }
      expect(next.status).toBe(201);
      expect(next.json.fencing).toBeGreaterThan(slow.json.fencing);
      expect(await own.call(next.json.fencing)).toBe(200);
      expect(await own.call(slow.json.fencing)).toBe(409);
      const late = await call(
        bases[1]!,
        'POST',
        `/v1/probes/${slow.json.token}/result`,
        { outcome: 'success', latencyMs: 5 },
        key,
      );
      expect(late.status).toBe(409);
      expect(own.honoured).toEqual([next.json.fencing]);
    } finally {
      await own.close();
    }
  });
});
