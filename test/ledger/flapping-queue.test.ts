/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape; each test asserts the fields it needs */
// Issue 11, end to end: a fleet's leased work queue (a test double on a real Postgres table) with
// MaxRangeReclaims = 5 under a breaker that flaps 10 times. Healthy units, held by instances while the
// breaker is open, are reclaimed once per flap; the poison unit crashes its handler and is reclaimed
// while everything is closed. Two controller replicas (in-process apps on one database and Redis)
// both run reconciliation at once, and the BullMQ job runs too; the fleet applies refunds with the
// SDK's LedgerClient from a cursor kept in Postgres, idempotently by refundId.
import { LedgerClient, type LedgerEventInput, type LedgerRefund } from '@recloser/client';
import { Reconciliation } from '@recloser/control';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeatRound, instanceIds, pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const GROUP = `ledger-${randomSuffix()}`;
const DEP = 'llm-provider';
const MAX_RANGE_RECLAIMS = 5;
const FLAPS = 10;
const LEASE_MS = 300;
const HEALTHY = ['h01', 'h02', 'h03', 'h04', 'h05', 'h06'];
const OPENERS = instanceIds(10, 'w');
const CRASHY = 'crashy'; // always reports closed; the poison unit crashes its handler

/** The fleet's queue: units, their counters, leases; quarantine at MAX_RANGE_RECLAIMS reclaims. */
class PgQueue {
  constructor(private readonly db: pg.Client) {}

  async setup(): Promise<void> {
    await this.db.query(`
      CREATE TABLE test_work_units (id text PRIMARY KEY, poison boolean NOT NULL, attempts int NOT NULL DEFAULT 0,
        reclaims int NOT NULL DEFAULT 0, state text NOT NULL DEFAULT 'ready', holder text, lease_until timestamptz);
      CREATE TABLE test_applied_refunds (refund_id text PRIMARY KEY);
      CREATE TABLE test_refund_cursor (group_name text PRIMARY KEY, cursor text NOT NULL);`);
    for (const id of HEALTHY)
      await this.db.query(`INSERT INTO test_work_units (id, poison) VALUES ($1, false)`, [id]);
    await this.db.query(`INSERT INTO test_work_units (id, poison) VALUES ('p01', true)`);
  }

  async claim(id: string, holder: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE test_work_units SET state = 'leased', holder = $2, lease_until = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND state = 'ready'`,
      [id, holder, LEASE_MS],
    );
    return r.rowCount === 1;
  }

  /** Expired leases: one more reclaim each (quarantined at the bound); the events to report. */
  async expire(): Promise<LedgerEventInput[]> {
    const r = await this.db.query(
      `UPDATE test_work_units u SET reclaims = u.reclaims + 1, holder = NULL, lease_until = NULL,
         state = CASE WHEN u.reclaims + 1 >= $1 THEN 'quarantined' ELSE 'ready' END
       FROM (SELECT id, holder, lease_until FROM test_work_units WHERE state = 'leased' AND lease_until <= now() FOR UPDATE) old
       WHERE u.id = old.id RETURNING u.id, old.holder, old.lease_until, u.reclaims`,
      [MAX_RANGE_RECLAIMS],
    );
    return r.rows.map((row: any) => ({
      eventId: `reclaim-${row.id}-${row.reclaims}-${(row.lease_until as Date).getTime()}`,
      workId: row.id,
      instanceId: row.holder,
      dependency: DEP,
      kind: 'reclaim' as const,
      at: row.lease_until as Date,
    }));
  }

  /** One refund, once: the applied id and the counters in one transaction. */
  async apply(refund: LedgerRefund): Promise<void> {
    await this.db.query('BEGIN');
    try {
      const fresh = await this.db.query(
        `INSERT INTO test_applied_refunds (refund_id) VALUES ($1) ON CONFLICT DO NOTHING`,
        [refund.refundId],
      );
      if (fresh.rowCount === 1)
        await this.db.query(
          `UPDATE test_work_units SET reclaims = greatest(0, reclaims - $2), attempts = greatest(0, attempts - $3)
           WHERE id = $1 AND state <> 'quarantined'`,
          [refund.workId, refund.reclaims, refund.attempts],
        );
      await this.db.query('COMMIT');
    } catch (err) {
      await this.db.query('ROLLBACK');
      throw err;
    }
  }

  cursor() {
    return {
      load: async () =>
        ((await this.db.query(`SELECT cursor FROM test_refund_cursor WHERE group_name = $1`, [GROUP])).rows[0]
          ?.cursor as string | undefined) ?? null,
      save: async (next: string) => {
        await this.db.query(
          `INSERT INTO test_refund_cursor (group_name, cursor) VALUES ($1, $2)
           ON CONFLICT (group_name) DO UPDATE SET cursor = EXCLUDED.cursor`,
          [GROUP, next],
        );
      },
    };
  }

  async units(): Promise<{ id: string; poison: boolean; reclaims: number; state: string }[]> {
    return (await this.db.query(`SELECT id, poison, reclaims, state FROM test_work_units ORDER BY id`)).rows;
  }
}

describe('reconciliation under a flapping breaker (real Postgres queue, two replicas)', () => {
  let a: TestApp;
  let b: TestApp;
  let db: pg.Client;
  let key: string;
  let base: string;

  beforeAll(async () => {
    a = await bootTestApp();
    b = await bootTestApp({}, a.db);
    key = (await createFleetKey(a, [GROUP])).key;
    base = await a.listen();
    db = new pg.Client({ connectionString: a.db.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await b?.stop();
    await a?.close();
  });

  it('quarantines no healthy unit and the poison one; refunds each reclaim during OPEN once, nothing while closed', async () => {
    const queue = new PgQueue(db);
    await queue.setup();
    const ledger = new LedgerClient({ url: base, key, group: GROUP });
    const runners = [a.app.get(Reconciliation), b.app.get(Reconciliation)];
    const everyone = [...OPENERS, CRASHY];
    const beat = (open: boolean) =>
      heartbeatRound(a, key, GROUP, DEP, everyone, (i) =>
        open && everyone[i] !== CRASHY ? 'open' : 'closed',
      );
    const stateNow = async () =>
      (await a.request('GET', `/v1/breakers?group=${GROUP}`, { token: key })).body.breakers[0]?.state;
    const feed: LedgerRefund[] = [];
    const applyRefunds = () =>
      ledger.applyRefunds({
        cursor: queue.cursor(),
        apply: async (r) => {
          feed.push(r);
          await queue.apply(r);
        },
      });

    const first = await beat(false);
    const breakerId = first[0]!.body.breakers[0].breakerId as string;
    await sleep(1100); // the group's learning period (one TTL)
    const reported: LedgerEventInput[] = [];
    for (let flap = 0; flap < FLAPS; flap++) {
      // the instances hold healthy units when the breaker opens: paused, they let the leases run out
      for (const [i, id] of HEALTHY.entries()) expect(await queue.claim(id, OPENERS[i]!)).toBe(true);
      const opened = await pollUntil(
        async () => (await beat(true), stateNow()),
        (s) => s === 'open',
        { attempts: 30, everyMs: 100 },
      );
      expect(opened).toBe('open');
      await sleep(LEASE_MS + 100);
      const during = await queue.expire();
      expect(during.map((e) => e.workId).sort()).toEqual(HEALTHY);
      reported.push(...during);
      await ledger.report(during);
      // closed again (an operator here; the refund rules read the transition log either way)
      const closed = await a.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
        action: 'force_close',
        reason: `flap ${flap + 1}`,
      });
      expect(closed.status).toBeLessThan(300);
      await beat(false);
      // well past the stale window (one tick) after the close and after the instances closed
      await sleep(500);
      await beat(false);
      // the poison unit crashes its handler while everything is closed: its reclaim is not refunded
      if ((await queue.units()).find((u) => u.id === 'p01')!.state === 'ready') {
        expect(await queue.claim('p01', CRASHY)).toBe(true);
        await sleep(LEASE_MS + 100);
        const crashed = await queue.expire();
        reported.push(...crashed);
        await ledger.report(crashed);
      }
      // two runners at once (and the BullMQ job meanwhile), until this flap's reclaims are refunded
      const want = new Set(during.map((e) => e.eventId));
      await pollUntil(
        async () => {
          await Promise.all(runners.map((r) => r.run()));
          await applyRefunds();
          return feed.filter((r) => want.has(r.eventId)).length;
        },
        (n) => n === want.size,
        { attempts: 40, everyMs: 250 },
      );
      // the quorum's quiet period after force_close (one TTL) before the next flap
      await sleep(600);
    }
    // a last pass: anything late is judged, and nothing new may appear
    await sleep(1300);
    await Promise.all(runners.map((r) => r.run()));
    await applyRefunds();

    const units = await queue.units();
    expect(units.filter((u) => !u.poison && u.state === 'quarantined')).toEqual([]);
    expect(units.find((u) => u.poison)!.state).toBe('quarantined');
    // without the refunds every healthy unit would have reached the bound twice over
    for (const id of HEALTHY) expect(reported.filter((e) => e.workId === id).length).toBe(FLAPS);
    // every reclaim during OPEN refunded exactly once; none of the poison's (closed) reclaims
    const refundedEvents = feed.map((r) => r.eventId);
    expect(new Set(refundedEvents).size).toBe(refundedEvents.length);
    const openReclaims = reported.filter((e) => e.workId !== 'p01').map((e) => e.eventId);
    expect(refundedEvents.sort()).toEqual(openReclaims.sort());
    const rows = (
      await db.query(
        `SELECT count(*)::int AS n, count(DISTINCT (group_name, event_id))::int AS d FROM ledger_refunds`,
      )
    ).rows[0];
    expect(rows.n).toBe(rows.d);
    expect(rows.n).toBe(openReclaims.length);
    expect((await db.query(`SELECT count(*)::int AS n FROM test_applied_refunds`)).rows[0].n).toBe(rows.n);
    // the breaker flapped FLAPS times (transition log)
    const opens = (
      await db.query(
        `SELECT count(*)::int AS n FROM transitions WHERE breaker_id = $1 AND to_state = 'open'`,
        [breakerId],
      )
    ).rows[0].n;
    expect(opens).toBe(FLAPS);
  }, 150_000);
});
