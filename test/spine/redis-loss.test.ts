import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil, sleep } from '../support/fleet.js';
import { startOwnRedis, type OwnRedis } from '../support/own-redis.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

describe('Redis losing its data (a redis-server of the test own, flushed)', () => {
  let redis: OwnRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await bootTestApp({
      REDIS_URL: redis.url,
      RECLOSER_HEARTBEAT_TTL_MS: '3000',
      RECLOSER_HEARTBEAT_INTERVAL_MS: '200',
    });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('the periodic quorum evaluation comes back by itself (its scheduler is put back)', async () => {
    await redis.client.flushall(); // every BullMQ scheduler and job gone
    const group = `g-flushed-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const ids = instanceIds(10);
    await heartbeatRound(t, key, group, 'dep', ids, () => 'closed');
    await sleep(1500); // inside the learning period; these verdicts stay live past its end
    await heartbeatRound(t, key, group, 'dep', ids, (i) => (i < 6 ? 'open' : 'closed'));
    // no more heartbeats: only the periodic job can open it, and only if its scheduler came back
    const breakers = await pollUntil(
      async () => (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers,
      (bs) => bs[0].state === 'open',
      { attempts: 80, everyMs: 100 },
    );
    expect(breakers[0]).toMatchObject({ state: 'open', quorum: { open: 6, live: 10, threshold: 5 } });
  });
});
