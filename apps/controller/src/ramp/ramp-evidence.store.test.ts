// The step evidence store on the real Redis (own key prefix): a heartbeat window counts toward a
// step only when the instance's previous heartbeat came after the step began (core countsTowardStep).
import { MemoryStepEvidence, type StepKey } from '@recloser/control';
import { emptyEvidence, type Evidence } from '@recloser/core';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPrefix } from '../../../../test/recovery/support/services.js';
import type { ControllerConfig } from '../config/controller-config.js';
import { RampEvidenceStore } from './ramp-evidence.store.js';

let redis: Redis;
let store: RampEvidenceStore;
let prefix: string;

beforeAll(() => {
  redis = new Redis('redis://127.0.0.1:6379');
  prefix = testPrefix('rampevidence');
  // the store reads only the key prefix from the controller's configuration
  store = new RampEvidenceStore(redis, { redisPrefix: prefix } as ControllerConfig);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const window = (attempts: number, successes: number): Evidence => {
  const e = emptyEvidence();
  e.attempts = attempts;
  e.successes = successes;
  e.byClass.overload = attempts - successes;
  return e;
};

describe('RampEvidenceStore', () => {
  it('drops the window of the first heartbeat after a step change and counts the next ones', async () => {
    const step = { breakerId: 'b1', epoch: 1, step: 1, stepSince: 10_000 };
    // a heartbeat before the step began: only remembered
    expect(await store.add(step, { instanceId: 'i1', at: 9_500 }, window(10, 10))).toBe(false);
    // the first after the change carries traffic of the old step's allowance: dropped
    expect(await store.add(step, { instanceId: 'i1', at: 10_400 }, window(20, 2))).toBe(false);
    // from then on the whole window ran under the new step
    expect(await store.add(step, { instanceId: 'i1', at: 11_400 }, window(8, 8))).toBe(true);
    expect(await store.add(step, { instanceId: 'i1', at: 12_400 }, window(6, 5))).toBe(true);
    const sample = await store.sample(step);
    expect(sample).toMatchObject({ attempts: 14, successes: 13 });
  });

  it('counts timeouts apart; a step whose counts were written before timeouts were counted reads them as not counted', async () => {
    const step = { breakerId: 'b9', epoch: 1, step: 2, stepSince: 30_000 };
    const timedOut = window(10, 6);
    timedOut.byClass.overload = 1;
    timedOut.byClass.network = 3;
    expect(await store.add(step, { instanceId: 'i1', at: 30_500 }, window(1, 1))).toBe(false);
    expect(await store.add(step, { instanceId: 'i1', at: 31_500 }, timedOut)).toBe(true);
    expect(await store.sample(step)).toMatchObject({ attempts: 10, successes: 6, timedOut: 3 });
    // the same counts as an older controller wrote them: no timeout field in the step's hash
    const older = { ...step, breakerId: 'b10' };
    expect(await store.add(older, { instanceId: 'i1', at: 30_500 }, window(1, 1))).toBe(false);
    expect(await store.add(older, { instanceId: 'i1', at: 31_500 }, timedOut)).toBe(true);
    expect(await redis.hdel(`${prefix}:ramp:b10:1:2:30000`, 'timedOut')).toBe(1);
    const sample = await store.sample(older);
    expect(sample).toMatchObject({ attempts: 10, successes: 6 });
    expect('timedOut' in sample).toBe(false);
  });

  it('never counts the first window of an instance it has not seen before, and keeps instances apart', async () => {
    const step = { breakerId: 'b2', epoch: 3, step: 0, stepSince: 50_000 };
    expect(await store.add(step, { instanceId: 'new', at: 60_000 }, window(5, 5))).toBe(false);
    expect(await store.add(step, { instanceId: 'other', at: 60_001 }, window(5, 5))).toBe(false);
    expect(await store.add(step, { instanceId: 'new', at: 61_000 }, window(5, 5))).toBe(true);
    expect(await store.sample(step)).toMatchObject({ attempts: 5, successes: 5 });
  });

  it('gives windows added together (one batch) the answers they would get one at a time, in order', async () => {
    const step = { breakerId: 'b3', epoch: 2, step: 1, stepSince: 20_000 };
    const answers = await Promise.all([
      store.add(step, { instanceId: 'a', at: 19_000 }, window(3, 3)),
      store.add(step, { instanceId: 'b', at: 20_500 }, window(4, 4)),
      store.add(step, { instanceId: 'a', at: 20_900 }, window(9, 1)),
      store.add(step, { instanceId: 'a', at: 21_900 }, window(7, 7)),
      store.add(step, { instanceId: 'b', at: 21_500 }, window(0, 0)),
      store.add(step, { instanceId: 'b', at: 22_500 }, window(2, 1)),
    ]);
    expect(answers).toEqual([false, false, false, true, false, true]);
    expect(await store.sample(step)).toMatchObject({ attempts: 9, successes: 8 });
  });

  it('a sample read right after an add that was not awaited includes it', async () => {
    const step = { breakerId: 'b4', epoch: 1, step: 2, stepSince: 1_000 };
    await store.add(step, { instanceId: 'i', at: 1_500 }, window(1, 1));
    void store.add(step, { instanceId: 'i', at: 2_500 }, window(5, 4));
    expect(await store.sample(step)).toMatchObject({ attempts: 5, successes: 4 });
  });

  it('property: windows written together (one batch, a step on each of several breakers) get the answers and sums of the in-memory store, one at a time', async () => {
    let run = 0;
    const windowArb = fc.record({
      instance: fc.constantFrom('a', 'b', 'c'),
      step: fc.constantFrom(0, 1),
      gap: fc.constantFrom(0, 250, 500, 750), // times that land exactly on stepSince too
      attempts: fc.integer({ min: 0, max: 30 }),
      failures: fc.integer({ min: 0, max: 30 }),
      latency: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
      queueAge: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(windowArb, { minLength: 1, maxLength: 40 }), async (windows) => {
        // two breakers on a step each (the in-memory store keeps one step per breaker)
        const keys: StepKey[] = [
          { breakerId: `prop-${run}-x`, epoch: 1, step: 0, stepSince: 1_000 },
          { breakerId: `prop-${run++}-y`, epoch: 2, step: 1, stepSince: 3_000 },
        ];
        const memory = new MemoryStepEvidence();
        let at = 500;
        const adds = windows.map((w) => {
          at += w.gap;
          const e = window(w.attempts, Math.max(0, w.attempts - w.failures));
          e.latencyP95Ms = w.latency;
          e.queueAgeMs = w.queueAge;
          return { key: keys[w.step]!, heartbeat: { instanceId: w.instance, at }, e };
        });
        const expected: boolean[] = [];
        for (const a of adds) expected.push(await memory.add(a.key, a.heartbeat, a.e));
        const answers = await Promise.all(adds.map((a) => store.add(a.key, a.heartbeat, a.e)));
        expect(answers).toEqual(expected);
        for (const k of keys) expect(await store.sample(k)).toEqual(await memory.sample(k));
      }),
      { numRuns: 30 },
    );
  });

  it('writes a batch of many windows in one round trip (one script per breaker), not per window', async () => {
    const calls = { evalsha: 0, pipeline: 0, multi: 0 };
    // the real client, with the calls that reach Redis for a batch counted
    const countingRedis = new Proxy(redis, {
      get(target, prop, receiver) {
        if (prop === 'evalsha' || prop === 'pipeline' || prop === 'multi')
          return (...args: unknown[]) => {
            calls[prop] += 1;
            return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          };
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const counted = new RampEvidenceStore(countingRedis, { redisPrefix: prefix } as ControllerConfig);
    const step = { breakerId: 'b5', epoch: 1, step: 0, stepSince: 1_000 };
    const first = Array.from({ length: 300 }, (_, i) =>
      counted.add(step, { instanceId: `i${i}`, at: 1_500 }, window(2, 2)),
    );
    expect(await Promise.all(first)).toEqual(first.map(() => false)); // no earlier heartbeats: none counts
    expect(calls).toEqual({ evalsha: 1, pipeline: 0, multi: 0 });
    const other = { breakerId: 'b5-other', epoch: 1, step: 0, stepSince: 1_000 };
    const second = Array.from({ length: 300 }, (_, i) =>
      counted.add(i % 2 ? step : other, { instanceId: `i${i}`, at: 2_500 }, window(2, 1)),
    );
    // b5's instances beat before; b5-other's did not (previous times are per breaker)
    expect(await Promise.all(second)).toEqual(second.map((_, i) => i % 2 === 1));
    expect(calls).toEqual({ evalsha: 3, pipeline: 0, multi: 0 });
    expect(await counted.sample(step)).toMatchObject({ attempts: 300, successes: 150 });
  });

  it('a sample waits for the windows accepted before it, not for those that keep arriving', async () => {
    const step = { breakerId: 'b7', epoch: 1, step: 0, stepSince: 1_000 };
    await store.add(step, { instanceId: 'i', at: 1_500 }, window(1, 1));
    void store.add(step, { instanceId: 'i', at: 2_500 }, window(3, 3));
    // a steady stream of heartbeats, one window every turn of the event loop, while the sample waits
    let streaming = true;
    let at = 3_000;
    const stream = (async () => {
      while (streaming) {
        void store.add(step, { instanceId: 'j', at: at++ }, window(1, 1));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    const sample = await store.sample(step);
    streaming = false;
    await stream;
    expect(sample.attempts).toBeGreaterThanOrEqual(3);
  });

  it('writes the windows it accepted before the app shuts down', async () => {
    const step = { breakerId: 'b6', epoch: 1, step: 0, stepSince: 1_000 };
    const leaving = new RampEvidenceStore(redis, { redisPrefix: prefix } as ControllerConfig);
    void leaving.add(step, { instanceId: 'i', at: 1_500 }, window(1, 1));
    void leaving.add(step, { instanceId: 'i', at: 2_500 }, window(4, 3));
    await leaving.beforeApplicationShutdown();
    // another replica's store reads them
    expect(await store.sample(step)).toMatchObject({ attempts: 4, successes: 3 });
  });
});
