import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  name: string;
  url: string;
  /** Runs SQL against the test database (a fresh connection each time). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${TEST_POSTGRES_URL}/postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database name with a random suffix, NOT created: the controller creates it on boot (that is
 * part of what is tested). Call drop() in afterAll.
 */
export function testDatabase(label = 'e2e'): TestDatabase {
  const name = `recloser_${label}_${randomBytes(5).toString('hex')}`;
  const url = `${TEST_POSTGRES_URL}/${name}`;
  return {
    name,
    url,
    async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
    drop: () =>
      withAdmin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))),
  };
}
