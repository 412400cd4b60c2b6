// Heartbeats at fleet scale: routine heartbeats are written behind, anything that can change a
// decision is written through before the answer. Quorum timing must not suffer (the K-th open
// verdict opens the breaker in its own answer), and a replica killed mid-stream (SIGKILL, no
// shutdown flush) must lose no locally open verdict and no transition it answered with.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type ControllerProcess } from '../../apps/simulator/src/live/ControllerProcess.js';
import { buildOnce } from '../recovery/support/replicas.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, dropRedisKeys, TEST_ADMIN_TOKEN, testEnv, type TestApp } from '../support/test-app.js';
import { testDatabase } from '../support/test-database.js';

/** the part of a heartbeat's answer these tests read */
interface PlanAnswer {
  breakers: { breakerId: string; global: { state: string; epoch: number } }[];
}

describe('quorum through the write-behind path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the K-th open verdict opens the breaker in its own answer while the fleet’s routine heartbeats are written behind', async () => {
    const group = 'g-kth';
    const { key } = await createFleetKey(t, [group]);
    const ids = instanceIds(20);
    await heartbeatRound(t, key, group, 'dep', ids, () => 'closed'); // new instances: written through
    await sleep(1100); // past the learning period (one TTL after the group was first seen)
    await heartbeatRound(t, key, group, 'dep', ids, () => 'closed'); // the view is read again
    const routine = await heartbeatRound(t, key, group, 'dep', ids, () => 'closed'); // written behind
    const { threshold, live } = routine[0]!.body.breakers[0].global.quorum;
    expect(live).toBe(20);
    expect(threshold).toBeGreaterThan(1);
    const states: string[] = [];
    for (let i = 0; i < threshold; i++) {
      const r = await t.request('POST', '/v1/heartbeats', {
        token: key,
        body: { instanceId: ids[i], group, region: 'eu-west', breakers: [verdict('dep', 'open')] },
      });
      expect(r.status).toBe(200);
      states.push(r.body.breakers[0].global.state);
    }
    expect(states).toEqual([...Array(threshold - 1).fill('closed'), 'open']);
  });
});

describe('a replica SIGKILLed while heartbeats stream in (real process, real Postgres)', () => {
  const db = testDatabase('crash_flush');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...testEnv(db) };
  let controller: ControllerProcess | null = null;
  let session: pg.Client | null = null;

  afterAll(async () => {
    await controller?.stop('SIGKILL');
    await session?.end().catch(() => undefined);
    await db.drop();
    await dropRedisKeys(env.REDIS_URL!, `${env.RECLOSER_REDIS_PREFIX}:*`);
  });

  it('loses no locally open verdict and no transition that was answered, only routine heartbeats of the last flush window', async () => {
    await buildOnce();
    controller = await startController({ env });
    const c = controller;
    const group = 'g-crash';
    const keyRes = await fetch(`${c.url}/v1/admin/fleet-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'crash', groups: [group] }),
    });
    const { key } = (await keyRes.json()) as { key: string };
    const post = async (instanceId: string, dependency: string, state: string) => {
      const res = await fetch(`${c.url}/v1/heartbeats`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          instanceId,
          group,
          region: 'eu-west',
          breakers: [verdict(dependency, state)],
        }),
      }).catch(() => null);
      return res && res.status === 200 ? ((await res.json()) as PlanAnswer) : null;
    };

    // 40 instances on 4 dependencies, closed, routine after the first round; then one instance
    // after another turns open on every dependency until the process is killed mid-stream
    const ids = instanceIds(40, 'w');
    const deps = ['d0', 'd1', 'd2', 'd3'];
    for (let round = 0; round < 3; round++)
      await Promise.all(deps.flatMap((d) => ids.map((id) => post(id, d, 'closed'))));
    const answeredOpen: { instanceId: string; dependency: string }[] = [];
    const answeredTransitions = new Map<string, number>(); // breakerId → highest epoch an answer showed
    /** per (dependency, instance): its last report sent (one worker sends all of a pair's, in order) */
    const lastSent = new Map<string, { state: string; answered: boolean }>();
    let stop = false;
    let sent = 0;
    const stream = async (worker: number) => {
      for (let i = worker; !stop && i < 4000; i += 8) {
        const id = ids[i % ids.length]!;
        const dependency = deps[Math.floor(i / ids.length) % deps.length]!;
        // the first round all closed (routine); from the second, three instances in four report open
        // (enough for a quorum on each dependency) while the fourth repeats its closed verdict
        const state = i >= ids.length * deps.length && i % 4 !== 0 ? 'open' : 'closed';
        sent += 1;
        const report = { state, answered: false };
        lastSent.set(`${dependency}/${id}`, report);
        const body = await post(id, dependency, state);
        if (!body) continue;
        report.answered = true;
        if (state === 'open') answeredOpen.push({ instanceId: id, dependency });
        const plan = body.breakers[0];
        if (plan.global.state !== 'closed')
          answeredTransitions.set(
            plan.breakerId,
            Math.max(answeredTransitions.get(plan.breakerId) ?? 0, plan.global.epoch),
          );
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => stream(w));
    // killed once some breaker opened (and an answer said so) and plenty of open verdicts were answered
    while ((answeredOpen.length < 60 || answeredTransitions.size === 0) && sent < 3500) await sleep(5);
    await c.stop('SIGKILL'); // no shutdown hook runs: whatever sat in the buffer is gone
    stop = true;
    await Promise.all(workers);
    expect(answeredOpen.length).toBeGreaterThanOrEqual(60);

    session = new pg.Client({ connectionString: db.url });
    await session.connect();
    // an instance whose last report was an answered open verdict is stored open (a later report,
    // answered or lost with the buffer, may have replaced any other)
    const rows = (
      await session.query<{ instance_id: string; dependency: string; state: string }>(
        `SELECT v.instance_id, b.dependency, v.state FROM verdicts v JOIN breakers b ON b.id = v.breaker_id`,
      )
    ).rows;
    const stored = new Map(rows.map((r) => [`${r.dependency}/${r.instance_id}`, r.state]));
    const lastAnsweredOpen = [...lastSent]
      .filter(([, r]) => r.state === 'open' && r.answered)
      .map(([k]) => k);
    expect(lastAnsweredOpen.length).toBeGreaterThan(10);
    expect(lastAnsweredOpen.filter((k) => stored.get(k) !== 'open')).toEqual([]);

    // every transition an answer showed is in the log
    const logged = (
      await session.query<{ breaker_id: string; epoch: number }>(
        `SELECT breaker_id, max(epoch)::int AS epoch FROM transitions GROUP BY breaker_id`,
      )
    ).rows;
    const epochs = new Map(logged.map((r) => [r.breaker_id, r.epoch]));
    expect(answeredTransitions.size).toBeGreaterThan(0);
    for (const [breakerId, epoch] of answeredTransitions)
      expect(epochs.get(breakerId) ?? 0).toBeGreaterThanOrEqual(epoch);
  });
});
