import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const DEP = 'llm-provider';
const TEN = instanceIds(10);

// short timers (TTL 1 s, interval 200 ms, isolation after 300 ms) so the cases run in seconds
describe('quorum on real Postgres + Redis (in-process controller)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ RECLOSER_ISOLATION_AFTER_MS: '300' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const breakersOf = async (key: string, group: string) =>
    (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers as {
      breakerId: string;
      state: string;
      epoch: number;
      quorum: { open: number; live: number; threshold: number };
    }[];

  it('6 of 10 live instances locally open → OPEN with figures {open 6, live 10, threshold 5} and who formed it', async () => {
    const group = `g-quorum-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    // keep reporting (as a fleet does) until the learning period is over and the quorum forms
    const last = await pollUntil(
      async () =>
        (await heartbeatRound(t, key, group, DEP, TEN, (i) => (i < 6 ? 'open' : 'closed')))[0]!.body,
      (body) => body.breakers[0].global.state === 'open',
      { attempts: 60, everyMs: 100 },
    );
    expect(last.breakers[0].global).toMatchObject({
      state: 'open',
      epoch: 1,
      quorum: { open: 6, live: 10, threshold: 5 },
    });
    expect(last).toMatchObject({ heartbeatIntervalMs: 200, leaseTtlMs: 1000 });

    const [breaker] = await breakersOf(key, group);
    expect(breaker).toMatchObject({ state: 'open', epoch: 1, quorum: { open: 6, live: 10, threshold: 5 } });

    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breaker!.breakerId}`);
    expect(log.status).toBe(200);
    expect(log.body.chain).toEqual({ ok: true, length: 1 });
    expect(log.body.transitions).toHaveLength(1);
    expect(log.body.transitions[0]).toMatchObject({
      from: 'closed',
      to: 'open',
      epoch: 1,
      actor: 'quorum',
      formedBy: ['i0', 'i1', 'i2', 'i3', 'i4', 'i5'],
      // a heartbeat or the periodic job, whichever evaluates first after the learning period
      figures: {
        quorum: { open: 6, live: 10, threshold: 5 },
        trigger: expect.stringMatching(/^(heartbeat|periodic)$/),
      },
    });
  });

  it('one bad node keeps its group CLOSED and shows as isolated in the breaker detail', async () => {
    const group = `g-lone-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const [first] = await heartbeatRound(t, key, group, DEP, TEN, (i) => (i === 0 ? 'open' : 'closed'));
    const breakerId = first!.body.breakers[0].breakerId as string;
    // report on past the learning period and the isolation threshold
    const detail = await pollUntil(
      async () => {
        const rs = await heartbeatRound(t, key, group, DEP, TEN, (i) => (i === 0 ? 'open' : 'closed'));
        expect(rs.every((r) => r.body.breakers[0].global.state === 'closed')).toBe(true);
        return (await t.admin('GET', `/v1/admin/breakers/${breakerId}`)).body;
      },
      (d) => d.isolated.length > 0,
      { attempts: 50, everyMs: 100 },
    );
    expect(detail.breaker).toMatchObject({ state: 'closed', quorum: { open: 1, live: 10, threshold: 5 } });
    expect(detail.isolated).toEqual([{ instanceId: 'i0', openForMs: expect.any(Number) }]);
    expect(detail.isolated[0].openForMs).toBeGreaterThan(300);
    expect(detail.instances).toHaveLength(10);
    expect(detail.instances.find((i: { instanceId: string }) => i.instanceId === 'i0')).toMatchObject({
      state: 'open',
      live: true,
      openSince: expect.any(String),
    });
    expect(detail.transitions).toEqual([]);
  });

  it('a dead instance stops counting toward L after the TTL', async () => {
    const group = `g-dead-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    await heartbeatRound(t, key, group, DEP, TEN, () => 'closed');
    expect((await breakersOf(key, group))[0]!.quorum.live).toBe(10);
    // only the first five keep reporting; the other five fall silent
    const survivors = TEN.slice(0, 5);
    const [breaker] = await pollUntil(
      async () => {
        await heartbeatRound(t, key, group, DEP, survivors, () => 'closed');
        return breakersOf(key, group);
      },
      (bs) => bs[0]!.quorum.live === 5,
      { attempts: 50, everyMs: 100 },
    );
    expect(breaker!.quorum).toEqual({ open: 0, live: 5, threshold: 3 });
    const detail = (await t.admin('GET', `/v1/admin/breakers/${breaker!.breakerId}`)).body;
    const liveness = Object.fromEntries(
      detail.instances.map((i: { instanceId: string; live: boolean }) => [i.instanceId, i.live]),
    );
    expect(liveness).toEqual({
      i0: true,
      i1: true,
      i2: true,
      i3: true,
      i4: true,
      i5: false,
      i6: false,
      i7: false,
      i8: false,
      i9: false,
    });
  });

  it('operator actions go through the lifecycle and the chained log; the group quorum policy applies', async () => {
    const group = `g-ops-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const [first] = await heartbeatRound(t, key, group, DEP, TEN, () => 'closed');
    const breakerId = first!.body.breakers[0].breakerId as string;

    const badPolicy = await t.admin('PUT', `/v1/admin/groups/${group}/quorum`, { fraction: 0, minOpen: 1.5 });
    expect(badPolicy.status).toBe(400);
    expect(badPolicy.body.message).toContain('fraction must be in (0, 1]');
    expect(badPolicy.body.message).toContain('minOpen must be an integer');
    const policy = await t.admin('PUT', `/v1/admin/groups/${group}/quorum`, { fraction: 0.3, minOpen: 3 });
    expect(policy.body).toEqual({ group, fraction: 0.3, minOpen: 3 });
    expect((await breakersOf(key, group))[0]!.quorum.threshold).toBe(3);

    const badAction = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'explode',
      reason: 'x',
    });
    expect(badAction.status).toBe(400);
    expect(badAction.body.message).toContain('action must be one of');
    expect(
      (
        await t.admin('POST', `/v1/admin/breakers/00000000-0000-4000-8000-000000000000/actions`, {
          action: 'force_open',
          reason: 'x',
        })
      ).status,
    ).toBe(404);

    const opened = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_open',
      reason: 'provider outage',
    });
    expect(opened.status).toBe(200);
    expect(opened.body.breaker).toMatchObject({ state: 'open', epoch: 1 });
    const closed = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'all clear',
    });
    expect(closed.body.breaker.state).toBe('closed');
    const log = (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    expect(log.chain).toEqual({ ok: true, length: 2 });
    expect(
      log.transitions.map((r: { actor: string; to: string; reason: string }) => [r.actor, r.to, r.reason]),
    ).toEqual([
      ['operator', 'closed', 'force_close: all clear'],
      ['operator', 'open', 'force_open: provider outage'],
    ]);

    // tampering with a row breaks the chain
    await t.db.query(`UPDATE transitions SET reason = 'nothing to see' WHERE breaker_id = $1 AND seq = 1`, [
      breakerId,
    ]);
    const tampered = (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    expect(tampered.chain).toMatchObject({ ok: false, brokenAtSeq: 1 });

    const overview = await t.admin('GET', '/v1/admin/overview');
    expect(overview.status).toBe(200);
    expect(
      overview.body.breakers.find((b: { breakerId: string }) => b.breakerId === breakerId),
    ).toMatchObject({ live: 10, open: 0 });
  });
});
