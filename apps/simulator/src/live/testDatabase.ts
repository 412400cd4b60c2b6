// Throwaway databases for tests and bench runs, `recloser_<label>_<random>` on the PostgreSQL server
// of TEST_POSTGRES_URL, so runs side by side never share one and the server is configurable once.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server (a URL without a database) that tests, the bench and live mode use. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  name: string;
  url: string;
  /** Creates it (for a caller that migrates it itself; the controller creates a missing one on boot). */
  create(): Promise<void>;
  /** Runs SQL against it (a fresh connection each time). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Drops it, connections and all; nothing if it was never created. */
  drop(): Promise<void>;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database name with a random suffix, NOT created yet: the controller or create() does. */
export function testDatabase(label = 'e2e'): TestDatabase {
  const name = `recloser_${label}_${randomBytes(5).toString('hex')}`;
  const url = `${TEST_POSTGRES_URL}/${name}`;
  const admin = <T>(fn: (c: pg.Client) => Promise<T>) => withClient(`${TEST_POSTGRES_URL}/postgres`, fn);
  return {
    name,
    url,
    create: () => admin(async (c) => void (await c.query(`CREATE DATABASE "${name}"`))),
    query: <T>(sql: string, params: unknown[] = []) =>
      withClient(url, async (c) => (await c.query(sql, params)).rows as T[]),
    drop: () => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}
