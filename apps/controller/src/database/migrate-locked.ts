import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/** Any fixed 64-bit number; every replica uses the same one so only one migrates at a time. */
export const MIGRATION_LOCK_KEY = 7_310_542_118_004n;

/**
 * Runs pending migrations while holding a Postgres advisory lock, so replicas started at once
 * migrate one after the other (the later ones find nothing left to do). Returns the names applied.
 */
export async function migrateLocked(databaseUrl: string): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl));
  await dataSource.initialize();
  const lockRunner = dataSource.createQueryRunner();
  try {
    await lockRunner.connect();
    await lockRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await lockRunner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await lockRunner.release();
    await dataSource.destroy();
  }
}
