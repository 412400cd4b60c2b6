import pg from 'pg';
import { databaseNameOf } from '../config/controller-config.js';
import { describeError, redactUrl, StartupError } from '../common/startup-error.js';

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505'; // two replicas creating the same database at the same instant

/** Creates the database named in the URL when it is missing; fails with a clear message when Postgres is unreachable. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const name = databaseNameOf(databaseUrl);
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const client = new pg.Client({ connectionString: adminUrl.toString(), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new StartupError(
      `Cannot reach PostgreSQL at ${redactUrl(databaseUrl)} (${describeError(err)}). ` +
        'Start PostgreSQL or set DATABASE_URL to a server that answers.',
    );
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((err: { code?: string }) => {
        if (err.code !== DUPLICATE_DATABASE && err.code !== UNIQUE_VIOLATION) throw err;
      });
    }
  } catch (err) {
    throw new StartupError(
      `Cannot create database "${name}" at ${redactUrl(databaseUrl)} (${describeError(err)}). ` +
        'Create it by hand or give the user in DATABASE_URL the CREATEDB privilege.',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
