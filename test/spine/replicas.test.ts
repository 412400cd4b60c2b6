import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { createFleetKey } from '../support/fleet-key.js';
import { instanceIds, pollUntil, verdict } from '../support/fleet.js';
import { bootTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

// two replicas in one process, one database, one Redis prefix: they must act as one controller
describe('two controller replicas on one database', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof createControllerApp>>;
  beforeAll(async () => {
    a = await bootTestApp();
    b = await createControllerApp(a.env); // same env: same database, same Redis prefix
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const postTo = async (replica: 'a' | 'b', key: string, body: unknown) => {
    if (replica === 'a') return a.request('POST', '/v1/heartbeats', { token: key, body });
    const res = await b
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: 'POST',
        url: '/v1/heartbeats',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };

  it('a quorum reported half to each replica opens the breaker exactly once', async () => {
    const group = 'g-replicas';
    const { key } = await createFleetKey(a, [group]);
    const ids = instanceIds(10);
    const round = () =>
      Promise.all(
        ids.map((instanceId, i) =>
          postTo(i % 2 === 0 ? 'a' : 'b', key, {
            instanceId,
            group,
            region: 'eu-west',
            breakers: [verdict('dep', i < 6 ? 'open' : 'closed')],
          }),
        ),
      );
    const last = await pollUntil(
      round,
      (rs) => rs.every((r) => r.status === 200 && r.body.breakers[0].global.state === 'open'),
      { attempts: 60, everyMs: 100 },
    );
    expect(last.map((r) => r.body.breakers[0].global.epoch)).toEqual(Array(10).fill(1));
    expect(new Set(last.map((r) => r.body.breakers[0].breakerId)).size).toBe(1);
    const breakerId = last[0]!.body.breakers[0].breakerId as string;
    const log = (await a.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    expect(log.chain).toEqual({ ok: true, length: 1 });
    expect(log.transitions[0]).toMatchObject({ from: 'closed', to: 'open', epoch: 1, actor: 'quorum' });
    expect(await a.db.query('SELECT count(*)::int AS n FROM breakers')).toEqual([{ n: 1 }]);
  });
});

// a view that would stay stale for ten minutes: only the change feed can tell replica A in time
describe('two replicas: a transition committed on one reaches the other’s view through the change feed', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof createControllerApp>>;
  beforeAll(async () => {
    a = await bootTestApp({ RECLOSER_BREAKER_VIEW_MS: '600000' });
    b = await createControllerApp(a.env);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('replica A answers routine heartbeats with OPEN soon after replica B forced the breaker open', async () => {
    const group = 'g-feed';
    const { key } = await createFleetKey(a, [group]);
    const beat = () =>
      a.request('POST', '/v1/heartbeats', {
        token: key,
        body: { instanceId: 'w1', group, region: 'eu-west', breakers: [verdict('dep', 'closed')] },
      });
    const first = await beat(); // written through: A reads the breaker into its view
    const routine = await beat(); // the same report again: answered from the view
    expect([first.status, routine.status]).toEqual([200, 200]);
    expect(routine.body.breakers[0].global.state).toBe('closed');
    const breakerId = routine.body.breakers[0].breakerId as string;

    const forced = await b
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: 'POST',
        url: `/v1/admin/breakers/${breakerId}/actions`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ action: 'force_open', reason: 'change feed test' }),
      });
    expect(forced.statusCode).toBe(200);
    const seen = await pollUntil(beat, (r) => r.body.breakers[0].global.state === 'open', {
      attempts: 50,
      everyMs: 100,
    });
    expect(seen.body.breakers[0].global.state).toBe('open');
  });
});
