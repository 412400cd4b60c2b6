import { describe, expect, it } from 'vitest';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { ConfigError } from '../../apps/controller/src/config/controller-config.js';
import { StartupError } from '../../apps/controller/src/common/startup-error.js';
import { TEST_ADMIN_TOKEN } from '../support/test-app.js';
import { testDatabase } from '../support/test-database.js';

// ports nothing listens on (loopback, reserved-by-convention "discard"/low ports refuse at once)
const DEAD_PG = 'postgres://postgres:secret@127.0.0.1:9/recloser_nowhere';
const DEAD_REDIS = 'redis://127.0.0.1:9';
const base = { NODE_ENV: 'test', RECLOSER_ADMIN_TOKEN: TEST_ADMIN_TOKEN };

describe('the controller refuses to start, saying why', () => {
  it('an unreachable Postgres: names the URL (password masked) and what to do', async () => {
    const err = await createControllerApp({ ...base, DATABASE_URL: DEAD_PG }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(
      /^Cannot reach PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:9\/recloser_nowhere/,
    );
    expect((err as Error).message).toContain('Start PostgreSQL or set DATABASE_URL');
    expect((err as Error).message).not.toContain('secret');
  });

  it('an unreachable Redis: names the URL and what to do', async () => {
    const db = testDatabase('noredis'); // Postgres is checked (and the database created) first
    const err = await createControllerApp({ ...base, DATABASE_URL: db.url, REDIS_URL: DEAD_REDIS })
      .catch((e: unknown) => e)
      .finally(() => db.drop());
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(
      /^Cannot reach Redis at redis:\/\/127\.0\.0\.1:9 \(.*ECONNREFUSED/,
    );
    expect((err as Error).message).toContain('Start Redis or set REDIS_URL');
  });

  it('a bad variable: names it and the reason (before touching anything)', async () => {
    const err = await createControllerApp({ ...base, RECLOSER_HEARTBEAT_INTERVAL_MS: 'soon' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      'RECLOSER_HEARTBEAT_INTERVAL_MS must be an integer number of milliseconds',
    );
  });
});
