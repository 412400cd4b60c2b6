// Real services for the recovery tests: a fresh Postgres database (migrated), a key prefix of
// their own on the shared Redis.
import { randomBytes } from 'node:crypto';
import { migrations } from '@recloser/migrations';
import { DataSource } from 'typeorm';
import { testDatabase, type TestDatabase } from '../../support/test-database.js';

export interface MigratedDatabase extends TestDatabase {
  /** a migrated TypeORM DataSource on it */
  dataSource: DataSource;
}

/** Creates `recloser_<label>_<random>`, runs every migration, and drops it on `drop()`. */
export async function createMigratedDatabase(label: string): Promise<MigratedDatabase> {
  const db = testDatabase(label);
  await db.create();
  const dataSource = new DataSource({ type: 'postgres', url: db.url, migrations, synchronize: false });
  try {
    await dataSource.initialize();
    await dataSource.runMigrations();
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    await db.drop();
    throw err;
  }
  return {
    ...db,
    dataSource,
    async drop() {
      await dataSource.destroy().catch(() => undefined);
      await db.drop();
    },
  };
}

/** A key prefix of our own on the shared Redis (never flushed: others' tests use it too). */
export function testPrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}
