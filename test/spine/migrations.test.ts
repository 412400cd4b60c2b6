import { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { isLocallyOpen, REPORTED_STATES } from '@recloser/core';
import { migrations } from '@recloser/migrations';
import { LOCALLY_OPEN_PREDICATE } from '../../apps/controller/src/breakers/verdicts.repository.js';
import { dataSourceOptions } from '../../apps/controller/src/database/data-source-options.js';
import { ensureDatabase } from '../../apps/controller/src/database/ensure-database.js';
import { migrateLocked } from '../../apps/controller/src/database/migrate-locked.js';
import { testDatabase } from '../support/test-database.js';

describe('migrations (real Postgres)', () => {
  const db = testDatabase('migrate');
  afterAll(async () => {
    await db.drop();
  });

  it('two replicas creating and migrating one database at once both succeed, and each migration runs once', async () => {
    await Promise.all([ensureDatabase(db.url), ensureDatabase(db.url)]);
    const applied = await Promise.all([migrateLocked(db.url), migrateLocked(db.url)]);
    // one of them applied everything, the other found nothing left (which one is up to the lock)
    expect(applied.flat().sort()).toEqual(migrations.map((m) => m.name).sort());
    const rows = await db.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id');
    expect(rows.map((r) => r.name)).toEqual(migrations.map((m) => m.name));
    expect(await migrateLocked(db.url)).toEqual([]);
  });

  it('keeps heartbeat updates HOT: no index on the columns every heartbeat rewrites; the partial index is core isLocallyOpen', async () => {
    await migrateLocked(db.url);
    const indexes = await db.query<{ tablename: string; indexdef: string; indexname: string }>(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename IN ('verdicts', 'instances')`,
    );
    const rewritten = indexes.filter((i) => /reported_at|last_seen_at|evidence|demand/.test(i.indexdef));
    expect(rewritten).toEqual([]);
    const partial = indexes.find((i) => i.indexname === 'IDX_verdicts_locally_open')!.indexdef;
    const states = [...partial.matchAll(/'([a-z_]+)'::text/g)].map((m) => m[1]).sort();
    expect(states).toEqual(REPORTED_STATES.filter(isLocallyOpen).sort());
    expect(LOCALLY_OPEN_PREDICATE).toBe(
      `state IN (${REPORTED_STATES.filter(isLocallyOpen)
        .map((s) => `'${s}'`)
        .join(', ')})`,
    );
  });

  it('every migration has a working down: undo all, then migrate up again', async () => {
    const ds = new DataSource(dataSourceOptions(db.url));
    await ds.initialize();
    try {
      for (let i = 0; i < migrations.length; i++) await ds.undoLastMigration({ transaction: 'each' });
      const left = await db.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'`,
      );
      expect(left).toEqual([]);
    } finally {
      await ds.destroy();
    }
    expect((await migrateLocked(db.url)).length).toBe(migrations.length);
  });
});
