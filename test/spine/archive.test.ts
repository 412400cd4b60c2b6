import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveIdleJob } from '../../apps/controller/src/heartbeats/archive-idle.job.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

// a tiny archive time (the TTL's 1 s): a group silent for 1.2 s counts as idle
const ARCHIVE_AFTER_MS = 1000;
const IDLE = ARCHIVE_AFTER_MS + 300;

describe('archival of idle breakers and groups (issue 9)', () => {
  let t: TestApp;
  let key: string;
  const ids = async (token: string): Promise<string[]> =>
    ((await t.request('GET', '/v1/breakers', { token })).body.breakers as { breakerId: string }[]).map(
      (b) => b.breakerId,
    );
  const groupsInOverview = async (): Promise<string[]> =>
    ((await t.admin('GET', '/v1/admin/overview')).body.groups as { group: string }[]).map((g) => g.group);
  const beat = async (group: string, dependencies: string[], instanceId = 'i0') => {
    const res = await heartbeat(t, key, {
      instanceId,
      group,
      breakers: dependencies.map((d) => verdict(d, 'closed')),
    });
    expect(res.status).toBe(200);
    return res.body.breakers as { dependency: string; breakerId: string }[];
  };

  beforeAll(async () => {
    t = await bootTestApp({ RECLOSER_ARCHIVE_AFTER_MS: String(ARCHIVE_AFTER_MS) });
    key = (await createFleetKey(t, ['idle', 'busy'])).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('archives CLOSED breakers of a silent group, never an open one; a heartbeat brings one back CLOSED, same id', async () => {
    const [quiet, held] = await beat('idle', ['quiet', 'held']);
    const [busy] = await beat('busy', ['busy-dep']);
    const opened = await t.admin('POST', `/v1/admin/breakers/${held!.breakerId}/actions`, {
      action: 'force_open',
      reason: 'kept open by the operator',
    });
    expect(opened.status).toBe(200);
    await sleep(IDLE);
    await beat('busy', ['busy-dep']);

    const job = t.app.get(ArchiveIdleJob);
    expect(await job.handle()).toMatchObject({ breakers: 1, groups: 0 });
    expect(await ids(key)).toEqual(expect.arrayContaining([held!.breakerId, busy!.breakerId]));
    expect(await ids(key)).not.toContain(quiet!.breakerId);
    const overview = await t.admin('GET', '/v1/admin/overview');
    expect(overview.body.totals.breakers).toBe(2);
    expect(overview.body.totals.byState).toMatchObject({ closed: 1, open: 1 });
    // the row and its chain stay: an archived breaker is hidden, not forgotten
    expect((await t.admin('GET', `/v1/admin/breakers/${quiet!.breakerId}`)).status).toBe(200);
    expect((await job.handle()).breakers).toBe(0); // the open one stays, however long

    // the operator closes it: a fresh transition, idle again only a full archive time later
    expect(
      (
        await t.admin('POST', `/v1/admin/breakers/${held!.breakerId}/actions`, {
          action: 'force_close',
          reason: 'done',
        })
      ).status,
    ).toBe(200);
    expect((await job.handle()).breakers).toBe(0);
    await sleep(IDLE);
    await beat('busy', ['busy-dep']);
    expect(await job.handle()).toMatchObject({ breakers: 1, groups: 1 });
    expect(await ids(key)).toEqual([busy!.breakerId]);
    expect(await groupsInOverview()).toEqual(['busy']);
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${held!.breakerId}`);
    expect(log.body.transitions.length).toBeGreaterThanOrEqual(2);
    expect(log.body.chain.ok).toBe(true);

    // heard from again: the same breaker, CLOSED, listed; its group back in the overview
    const [back] = await beat('idle', ['quiet'], 'i9');
    expect(back!.breakerId).toBe(quiet!.breakerId);
    const listed = (await t.request('GET', '/v1/breakers?group=idle', { token: key })).body.breakers;
    expect(listed).toEqual([expect.objectContaining({ breakerId: quiet!.breakerId, state: 'closed' })]);
    expect(await groupsInOverview()).toEqual(['busy', 'idle']);
  });

  it('archives at most a batch per run', async () => {
    const { ARCHIVE_BATCH } = await import('../../apps/controller/src/heartbeats/archive-idle.job.js');
    await t.db.query(
      `INSERT INTO fleet_groups (group_name, first_seen_at) VALUES ('many', now() - interval '1 day')`,
    );
    await t.db.query(
      `INSERT INTO breakers (group_name, dependency, pool_id, state, global_state, updated_at)
       SELECT 'many', 'd' || n, 'default:d' || n, 'closed', b.global_state, now() - interval '1 day'
       FROM generate_series(1, $1) n, (SELECT global_state FROM breakers LIMIT 1) b`,
      [ARCHIVE_BATCH + 10],
    );
    const job = t.app.get(ArchiveIdleJob);
    expect((await job.handle()).breakers).toBe(ARCHIVE_BATCH);
    expect(await job.handle()).toMatchObject({ breakers: 10, groups: 1 });
  });

  it('refuses an archive time shorter than the heartbeat TTL at boot, naming the variable', async () => {
    const { loadConfig } = await import('../../apps/controller/src/config/controller-config.js');
    const base = { NODE_ENV: 'test', RECLOSER_HEARTBEAT_TTL_MS: '5000' };
    expect(() => loadConfig({ ...base, RECLOSER_ARCHIVE_AFTER_MS: '1000' })).toThrow(
      /RECLOSER_ARCHIVE_AFTER_MS/,
    );
    expect(() => loadConfig({ ...base, RECLOSER_ARCHIVE_AFTER_MS: 'soon' })).toThrow(
      /RECLOSER_ARCHIVE_AFTER_MS/,
    );
    expect(loadConfig(base).archiveAfterMs).toBe(7 * 24 * 3_600_000);
  });
});
