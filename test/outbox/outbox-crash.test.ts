// A real controller process SIGKILLed between delivering events and marking them published (the
// relay's commit): the next process delivers every event again, each once, and all end published.
// The events are committed by an in-process writer with its relay off, standing in for the Postgres
// BreakerStore adapter's transition transaction (the same OutboxService.append).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  startController as launch,
  type ControllerProcess,
} from '../../apps/simulator/src/live/ControllerProcess.js';
import { buildOnce } from '../recovery/support/replicas.js';
import { bootTestApp, dropRedisKeys, testEnv, type TestApp } from '../support/test-app.js';
import { testDatabase } from '../support/test-database.js';
import { breakerIds, draft, outboxOf, waitFor } from './support/outbox-fixtures.js';

/** the advisory lock the test holds to keep a relay between delivery and its UPDATE */
const HOLD_KEY = 4_242_017;

type Controller = ControllerProcess;
const startController = (env: NodeJS.ProcessEnv) =>
  launch({ env: { PATH: process.env.PATH, ...env, RECLOSER_OUTBOX_POLL_MS: '50' } });

/** recloser_control_events_total{type="breaker.transition"} as the process's /metrics shows it */
async function relayedTransitions(c: Controller, token: string): Promise<number> {
  const metrics = await fetch(`${c.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await metrics.text();
  const m = /^recloser_control_events_total\{[^}]*type="breaker\.transition"[^}]*\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('outbox across a controller crash (real processes, real Postgres)', () => {
  const db = testDatabase('outbox_crash');
  const env = testEnv(db);
  const running: Controller[] = [];
  let writer: TestApp | null = null;
  let session: pg.Client | null = null;

  afterAll(async () => {
    for (const c of running) await c.stop('SIGKILL');
    await session?.end().catch(() => undefined);
    await writer?.stop();
    await db.drop();
    await dropRedisKeys(env.REDIS_URL!, `${env.RECLOSER_REDIS_PREFIX}:*`);
  });

  it('SIGKILL after delivery, before the relay committed: the next process delivers every event once and all end published', async () => {
    await buildOnce();
    const a = await startController(env); // creates and migrates the database
    running.push(a);
    writer = await bootTestApp({ RECLOSER_OUTBOX_RELAY: 'false', RECLOSER_MIGRATE_ON_BOOT: 'false' }, db);
    const w = outboxOf(writer);

    // hold every UPDATE of outbox_events (the relay's "mark published") on a lock this session owns
    session = new pg.Client({ connectionString: db.url });
    await session.connect();
    await session.query('SELECT pg_advisory_lock($1)', [HOLD_KEY]);
    await session.query(`
      CREATE FUNCTION test_hold_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${HOLD_KEY}); RETURN NULL; END $$`);
    await session.query(`CREATE TRIGGER test_hold_outbox BEFORE UPDATE ON outbox_events
      FOR EACH STATEMENT EXECUTE FUNCTION test_hold_outbox()`);

    const ids = breakerIds(4);
    // one transaction, so A's relay reads all 20 in its first batch (separate commits could be
    // split across batches, and the test holds the first one)
    await w.commit([0, 1, 2, 3, 4].flatMap((n) => ids.map((id) => draft(id, n))));
    // A selected them, handed them to its metrics consumer, and waits to mark them published
    const waiting = async () =>
      (
        await session!.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event = 'advisory'
              AND query LIKE 'UPDATE outbox_events%'`,
          [db.name],
        )
      ).rows;
    await waitFor('the relay of A held at its UPDATE', async () => (await waiting()).length === 1);
    const [held] = await waiting();
    await waitFor(
      'A delivered the 20 events',
      async () => (await relayedTransitions(a, env.RECLOSER_ADMIN_TOKEN!)) === 20,
    );

    await a.stop('SIGKILL');
    // A's backend gets the lock, finds its client gone, and rolls the batch back (Postgres's own handling)
    await session.query('SELECT pg_advisory_unlock($1)', [HOLD_KEY]);
    await waitFor(
      "A's backend gone",
      async () =>
        (await session!.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [held!.pid])).rowCount === 0,
    );
    await session.query('DROP TRIGGER test_hold_outbox ON outbox_events');
    await session.query('DROP FUNCTION test_hold_outbox()');
    const unpublished = async () =>
      Number(
        (await session!.query('SELECT count(*) AS n FROM outbox_events WHERE published_at IS NULL')).rows[0]
          .n,
      );
    expect(await unpublished()).toBe(20); // delivered by A, but never marked

    for (const id of ids) await w.commit([draft(id, 5)]); // committed while no controller runs

    const b = await startController({ ...env, RECLOSER_MIGRATE_ON_BOOT: 'false' });
    running.push(b);
    await waitFor('B published everything', async () => (await unpublished()) === 0);
    await new Promise((r) => setTimeout(r, 300)); // a few more polls: nothing comes twice
    expect(await relayedTransitions(b, env.RECLOSER_ADMIN_TOKEN!)).toBe(24); // each event once at B's deduplicating consumer
    const rows = (
      await session.query<{ published_at: Date }>('SELECT published_at FROM outbox_events ORDER BY seq')
    ).rows;
    expect(rows).toHaveLength(24);
    // marked in seq order (one timestamp per batch)
    const at = rows.map((r) => r.published_at.getTime());
    expect(at).toEqual([...at].sort((x, y) => x - y));
  });
});
