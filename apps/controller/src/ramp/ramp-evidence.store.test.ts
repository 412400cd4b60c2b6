// The step evidence store on the real Redis (own key prefix): a heartbeat window counts toward a
// step only when the instance's previous heartbeat came after the step began (core countsTowardStep).
import { emptyEvidence, type Evidence } from '@recloser/core';
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
});
