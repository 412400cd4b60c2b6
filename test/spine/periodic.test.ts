import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

// TTL 3 s (= the learning period), evaluation every 200 ms
describe('learning period and periodic quorum evaluation (real Postgres + Redis + BullMQ)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ RECLOSER_HEARTBEAT_TTL_MS: '3000', RECLOSER_HEARTBEAT_INTERVAL_MS: '200' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('declares no quorum while learning a new group, then opens by the periodic job without another heartbeat', async () => {
    const group = `g-periodic-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const ids = instanceIds(10);
    await heartbeatRound(t, key, group, 'dep', ids, () => 'closed'); // the group is first seen now
    await sleep(1500); // still inside the group's learning period (one TTL), with room before these verdicts expire
    const responses = await heartbeatRound(t, key, group, 'dep', ids, (i) => (i < 6 ? 'open' : 'closed'));
    const breakerId = responses[0]!.body.breakers[0].breakerId as string;
    const during = (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers;
    expect(during[0]).toMatchObject({ state: 'closed', quorum: { open: 6, live: 10, threshold: 5 } });

    // no heartbeat from here on: only the periodic evaluation can open it once learning ends
    const breakers = await pollUntil(
      async () => (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers,
      (bs) => bs[0].state === 'open',
      { attempts: 60, everyMs: 100 },
    );
    expect(breakers[0]).toMatchObject({
      breakerId,
      state: 'open',
      quorum: { open: 6, live: 10, threshold: 5 },
    });
    const log = (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    expect(log.transitions).toHaveLength(1);
    expect(log.transitions[0]).toMatchObject({
      actor: 'quorum',
      to: 'open',
      figures: { trigger: 'periodic' },
    });
  });
});
