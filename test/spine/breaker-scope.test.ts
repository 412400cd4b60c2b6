import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GLOBAL_STATE_VERSION, POOL_CONFIG_VERSION } from '@recloser/core';
import { dataSourceOptions } from '../../apps/controller/src/database/data-source-options.js';
import { ensureDatabase } from '../../apps/controller/src/database/ensure-database.js';
import { migrateLocked } from '../../apps/controller/src/database/migrate-locked.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil } from '../support/fleet.js';
import { API_EXAMPLE_POOL } from '../support/pool-example.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';
import { testDatabase } from '../support/test-database.js';

const DEP = 'llm-provider';
const TEN = instanceIds(10);

/** A narrower breaker for the group's (group, dependency), its state stored as a v1 row (no `v`, no later fields). */
async function insertRegionBreaker(t: TestApp, group: string, region: string): Promise<string> {
  const [row] = await t.db.query<{ id: string }>(
    `INSERT INTO breakers (group_name, dependency, scope_kind, scope_value, pool_id, state, epoch, global_state)
     SELECT group_name, dependency, 'region', $2, pool_id, state, epoch,
            global_state - 'v' - 'drainingUntil' - 'quorumQuietUntil'
     FROM breakers WHERE group_name = $1 AND scope_kind = 'group'
     RETURNING id`,
    [group, region],
  );
  return row!.id;
}

describe('breaker scope and versioned stored JSON (real Postgres + Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a region breaker beside the group breaker leaves heartbeats on the group breaker and lists with its region', async () => {
    const group = `g-scope-${randomSuffix()}`;
    const { key } = await createFleetKey(t, [group]);
    const [first] = await heartbeatRound(t, key, group, DEP, TEN, () => 'closed');
    const groupBreakerId = first!.body.breakers[0].breakerId as string;
    const regionBreakerId = await insertRegionBreaker(t, group, 'eu-west');

    // a second replica (nothing cached) finds the group's breaker among the two rows, and creates none
    const replica = await bootTestApp({}, t.db);
    try {
      const rs = await heartbeatRound(replica, key, group, DEP, TEN.slice(0, 3), () => 'closed');
      expect(rs.map((r) => r.body.breakers[0].breakerId)).toEqual([
        groupBreakerId,
        groupBreakerId,
        groupBreakerId,
      ]);
    } finally {
      await replica.stop();
    }

    // the quorum opens the group's breaker only
    const last = await pollUntil(
      async () =>
        (await heartbeatRound(t, key, group, DEP, TEN, (i) => (i < 6 ? 'open' : 'closed')))[0]!.body,
      (body) => body.breakers[0].global.state === 'open',
      { attempts: 60, everyMs: 100 },
    );
    expect(last.breakers).toHaveLength(1);
    expect(last.breakers[0]).toMatchObject({
      breakerId: groupBreakerId,
      global: { state: 'open', epoch: 1 },
    });

    const listed = await t.request('GET', `/v1/breakers?group=${group}`, { token: key });
    expect(listed.status).toBe(200);
    const byId = new Map((listed.body.breakers as { breakerId: string }[]).map((b) => [b.breakerId, b]));
    expect(byId.size).toBe(2);
    expect(byId.get(groupBreakerId)).toMatchObject({ group, dependency: DEP, region: null, state: 'open' });
    expect(byId.get(regionBreakerId)).toMatchObject({
      group,
      dependency: DEP,
      region: 'eu-west',
      state: 'closed',
    });
    const count = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM breakers WHERE group_name = $1`,
      [group],
    );
    expect(count[0]!.n).toBe(2);

    // the group breaker's transition chain still verifies (rows are hashed, not global_state)
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${groupBreakerId}`);
    expect(log.body.chain).toEqual({ ok: true, length: 1 });

    // the v1 row reads upgraded: every field present, at the current version
    const detail = await t.admin('GET', `/v1/admin/breakers/${regionBreakerId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.globalState).toMatchObject({
      v: GLOBAL_STATE_VERSION,
      state: 'closed',
      drainingUntil: null,
      quorumQuietUntil: null,
    });
    // and what the controller writes carries the version
    const [stored] = await t.db.query<{ v: number }>(
      `SELECT (global_state->>'v')::int AS v FROM breakers WHERE id = $1`,
      [groupBreakerId],
    );
    expect(stored!.v).toBe(GLOBAL_STATE_VERSION);
  });

  it('a pool is stored with its version, shown without it, and a pool stored before `fallback` reads with the default', async () => {
    const id = `pool-${randomSuffix()}`;
    const put = await t.admin('PUT', `/v1/admin/pools/${id}`, {
      ...API_EXAMPLE_POOL,
      dependencies: [`dep-${id}`],
    });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('v');
    const [row] = await t.db.query<{ v: number }>(
      `SELECT (config->>'v')::int AS v FROM pools WHERE id = $1`,
      [id],
    );
    expect(row!.v).toBe(POOL_CONFIG_VERSION);

    await t.db.query(`UPDATE pools SET config = config - 'v' - 'fallback' WHERE id = $1`, [id]);
    const read = await t.admin('GET', `/v1/admin/pools/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('v');
    expect(read.body.fallback).toEqual({ ratePerSec: 0.2, ownersPerRegion: 2 });
    expect(read.body.capacity).toEqual(API_EXAMPLE_POOL.capacity);
  });
});

describe('BreakerScope migration down and up, with rows (real Postgres)', () => {
  const db = testDatabase('scope');
  afterAll(async () => {
    await db.drop();
  });

  const breaker = (group: string, dependency: string, kind: string, value: string) =>
    db.query(
      `INSERT INTO breakers (group_name, dependency, scope_kind, scope_value, pool_id, state, global_state)
       VALUES ($1, $2, $3, $4, 'p', 'closed', '{"state":"closed","epoch":0}')`,
      [group, dependency, kind, value],
    );
  const rows = () =>
    db.query<{ group_name: string; dependency: string; region: string | null }>(
      `SELECT group_name, dependency, region FROM breakers ORDER BY group_name, dependency, region NULLS FIRST`,
    );

  it('down keeps one breaker per (group, dependency) with its region; up restores the scopes', async () => {
    await ensureDatabase(db.url);
    await migrateLocked(db.url);
    await breaker('g', 'a', 'group', '');
    await breaker('g', 'a', 'region', 'eu-west');
    await breaker('g', 'b', 'region', 'us-east'); // alone for its dependency: the old schema can hold it
    await breaker('g', 'c', 'model', 'm-1'); // a kind the old schema has no column for
    await expect(breaker('g', 'a', 'region', 'eu-west')).rejects.toThrow(
      /UQ_breakers_group_dependency_scope/,
    );
    await expect(breaker('g', 'd', 'group', 'x')).rejects.toThrow(/CHK_breakers_scope_value/);
    await expect(breaker('g', 'd', 'planet', 'mars')).rejects.toThrow(/CHK_breakers_scope_kind/);
    expect(await rows()).toEqual([
      { group_name: 'g', dependency: 'a', region: null },
      { group_name: 'g', dependency: 'a', region: 'eu-west' },
      { group_name: 'g', dependency: 'b', region: 'us-east' },
      { group_name: 'g', dependency: 'c', region: null },
    ]);

    const ds = new DataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      const applied = async () =>
        (await db.query<{ name: string }>('SELECT name FROM typeorm_migrations')).map((r) => r.name);
      for (let i = 0; i < 10 && (await applied()).includes('BreakerScope1764800000000'); i++)
        await ds.undoLastMigration({ transaction: 'each' });
      expect(await applied()).not.toContain('BreakerScope1764800000000');
    } finally {
      await ds.destroy();
    }
    const columns = await db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'breakers' AND column_name LIKE 'scope%'`,
    );
    expect(columns).toEqual([]);
    expect(await rows()).toEqual([
      { group_name: 'g', dependency: 'a', region: null },
      { group_name: 'g', dependency: 'b', region: 'us-east' },
    ]);
    // the old uniqueness is back
    await expect(
      db.query(
        `INSERT INTO breakers (group_name, dependency, region, pool_id, state, global_state)
         VALUES ('g', 'a', 'x', 'p', 'closed', '{}')`,
      ),
    ).rejects.toThrow(/UQ_breakers_group_dependency/);

    expect(await migrateLocked(db.url)).toContain('BreakerScope1764800000000');
    const scoped = await db.query(
      `SELECT dependency, scope_kind, scope_value, region FROM breakers ORDER BY dependency`,
    );
    expect(scoped).toEqual([
      { dependency: 'a', scope_kind: 'group', scope_value: '', region: null },
      { dependency: 'b', scope_kind: 'region', scope_value: 'us-east', region: 'us-east' },
    ]);
    await breaker('g', 'b', 'group', ''); // the group's breaker beside the region's
    expect(await rows()).toHaveLength(3);
  });
});
