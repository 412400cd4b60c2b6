// The controller's transactional outbox on real Postgres: what commits is delivered, in seq order,
// exactly once per id at a deduplicating consumer — across a rollback, a failing consumer, a stop
// between commit and relay, and two relays on one database.
import type { ControlEvent } from '@recloser/control';
import { afterEach, describe, expect, it } from 'vitest';
import { OUTBOX_RETENTION_MS } from '../../apps/controller/src/outbox/outbox.relay.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import {
  ascending,
  breakerIds,
  draft,
  outboxOf,
  perBreaker,
  recorder,
  seqs,
  sleep,
  waitFor,
} from './support/outbox-fixtures.js';

interface Row {
  seq: string;
  id: string;
  breaker_id: string | null;
  type: string;
  published: boolean;
}
const rowsOf = (t: TestApp) =>
  t.db.query<Row>(
    'SELECT seq, id, breaker_id, type, published_at IS NOT NULL AS published FROM outbox_events ORDER BY seq',
  );

describe('outbox (real Postgres)', () => {
  const apps: TestApp[] = [];
  // the relay starts by hand (after the test's consumers registered), unless a test says otherwise
  const boot = async (env: NodeJS.ProcessEnv = {}, on?: TestApp) => {
    const t = await bootTestApp({ RECLOSER_OUTBOX_RELAY: 'false', ...env }, on?.db);
    apps.push(t);
    return t;
  };
  afterEach(async () => {
    const done = apps.splice(0).reverse();
    for (const t of done) await t.stop();
    for (const t of done) await t.close(); // drops the database (shared ones: once is enough, twice is harmless)
  });

  it('a rolled-back transaction delivers nothing; a committed one delivers in seq order, fields intact, on kick', async () => {
    // a poll of a minute: only kick() can deliver within this test
    const t = await boot({ RECLOSER_OUTBOX_POLL_MS: '60000' });
    const o = outboxOf(t);
    const rec = recorder();
    rec.on(o.consumers);
    o.relay.start();
    const [x, y] = breakerIds(2) as [string, string];

    await expect(
      o.db.transaction(async (m) => {
        await o.service.append(m, [draft(x, 100), draft(y, 100)]);
        throw new Error('the transition failed after appending');
      }),
    ).rejects.toThrow('the transition failed');
    o.service.kick();

    const committed = [draft(x, 0), draft(y, 0), draft(x, 1), draft(x, 2), draft(y, 1)];
    await o.commit(committed);
    await o.service.publish([{ ...draft(y, 2), type: 'probe.granted' }]); // the EventSink path
    await waitFor('6 deliveries', () => rec.deduped.length >= 6, 5000);
    o.service.kick();
    await sleep(300);

    const rows = await rowsOf(t);
    expect(rows).toHaveLength(6); // the rolled-back rows never existed
    expect(rows.every((r) => r.published)).toBe(true);
    expect(rec.raw).toHaveLength(6);
    expect(seqs(rec.raw)).toEqual(rows.map((r) => Number(r.seq)));
    expect(rec.raw.map((e) => e.id)).toEqual(rows.map((r) => r.id));
    expect(rec.raw.every((e) => (e.data.n as number) < 100)).toBe(true);
    const expected = [...committed, { ...draft(y, 2), type: 'probe.granted' }];
    expect(rec.raw.map(({ type, breakerId, at, data }) => ({ type, breakerId, at, data }))).toEqual(expected);
  });

  it('a consumer that throws for its first 3 deliveries: every event arrives once per id, in order, at every consumer', async () => {
    const t = await boot({ RECLOSER_OUTBOX_POLL_MS: '30' });
    const o = outboxOf(t);
    const rec = recorder();
    rec.on(o.consumers); // before the flaky one: it is handed the failing event again on each retry
    let failures = 3;
    const flaky: ControlEvent[] = [];
    o.consumers.register('flaky', (e) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('webhook target is down');
      }
      flaky.push(e);
    });
    o.relay.start();
    const [x, y] = breakerIds(2) as [string, string];
    await o.commit([draft(x, 0), draft(y, 0), draft(x, 1)]);
    await o.commit([draft(y, 1), draft(x, 2), draft(y, 2), draft(x, 3)]);
    await waitFor('7 at the flaky consumer', () => flaky.length >= 7);
    // the last batch is marked published in its transaction right after its deliveries: wait for it
    await waitFor('every row published', async () => (await rowsOf(t)).every((r) => r.published));

    const rows = await rowsOf(t);
    const all = rows.map((r) => Number(r.seq));
    expect(rec.raw.length).toBe(7 + 3); // the failing event came again once per failure
    expect(seqs(rec.deduped)).toEqual(all);
    expect(seqs(flaky)).toEqual(all);
    expect(Object.fromEntries(perBreaker(rec.deduped))).toEqual({ [x]: [0, 1, 2, 3], [y]: [0, 1, 2] });
  });

  it('the app stops after commit, before its relay ran: the next app on the database delivers every event once, in order', async () => {
    // writer: relay off, so nothing of its commits is relayed before it stops (as a crash would leave it)
    const writer = await boot();
    const w = outboxOf(writer);
    const ids = breakerIds(3);
    const written = ids.flatMap((id) => [0, 1, 2].map((n) => draft(id, n)));
    for (const d of written) await w.commit([d]);
    await writer.stop();
    expect((await rowsOf(writer)).filter((r) => r.published)).toEqual([]);

    const next = await boot({ RECLOSER_OUTBOX_POLL_MS: '30' }, writer);
    const o = outboxOf(next);
    const rec = recorder();
    rec.on(o.consumers);
    o.relay.start();
    await waitFor('9 deliveries', () => rec.deduped.length >= 9);
    await sleep(150);
    const rows = await rowsOf(next);
    expect(rows.every((r) => r.published)).toBe(true);
    expect(seqs(rec.raw)).toEqual(rows.map((r) => Number(r.seq)));
    for (const id of ids) expect(perBreaker(rec.deduped).get(id)).toEqual([0, 1, 2]);
  });

  it('two relays on one database: each event is delivered once, never out of order per breaker, and either can take over', async () => {
    const a = await boot({ RECLOSER_OUTBOX_POLL_MS: '20' });
    const b = await boot({ RECLOSER_OUTBOX_POLL_MS: '20' }, a);
    const oa = outboxOf(a);
    const ob = outboxOf(b);
    // one recorder behind both relays: what the fleet as a whole delivered
    const rec = recorder();
    const by = { a: 0, b: 0 };
    rec.on(oa.consumers);
    rec.on(ob.consumers);
    oa.consumers.register('who', () => void (by.a += 1));
    ob.consumers.register('who', () => void (by.b += 1));
    oa.relay.start();
    ob.relay.start();

    // one sequential writer per breaker (as the breaker's row lock serialises its transitions),
    // alternating between the replicas, 1-3 events per commit
    const ids = breakerIds(4);
    const counts = new Map(ids.map((id) => [id, 0]));
    await Promise.all(
      ids.map(async (id, w) => {
        for (let i = 0; i < 12; i++) {
          const k = 1 + ((i + w) % 3);
          const n0 = counts.get(id)!;
          counts.set(id, n0 + k);
          const drafts = Array.from({ length: k }, (_, j) => draft(id, n0 + j));
          await ((i + w) % 2 === 0 ? oa : ob).commit(drafts);
        }
      }),
    );
    // hand-over: only b relays, then only a
    await oa.relay.stop();
    const bBefore = by.b;
    await oa.commit([draft(ids[0]!, counts.get(ids[0]!)!)]);
    counts.set(ids[0]!, counts.get(ids[0]!)! + 1);
    const total1 = [...counts.values()].reduce((s, n) => s + n, 0);
    await waitFor('b relays what a wrote', () => rec.deduped.length >= total1);
    expect(by.b).toBeGreaterThan(bBefore);
    oa.relay.start();
    await ob.relay.stop();
    const aBefore = by.a;
    await ob.commit([draft(ids[1]!, counts.get(ids[1]!)!)]);
    counts.set(ids[1]!, counts.get(ids[1]!)! + 1);
    const total = total1 + 1;
    await waitFor('a relays what b wrote', () => rec.deduped.length >= total);
    expect(by.a).toBeGreaterThan(aBefore);
    await sleep(150);

    const rows = await rowsOf(a);
    expect(rows).toHaveLength(total);
    expect(rows.every((r) => r.published)).toBe(true);
    // no failure, so not even a redelivery: raw deliveries are each id once
    expect(rec.raw).toHaveLength(total);
    expect(new Set(rec.raw.map((e) => e.id)).size).toBe(total);
    expect(ascending(seqs(rec.deduped))).toEqual(rows.map((r) => Number(r.seq)));
    // per breaker, not globally: concurrent transactions of different breakers commit out of seq
    // order, and a lower seq committed later is delivered after the higher one it trailed
    for (const id of ids) {
      const mine = seqs(rec.deduped.filter((e) => e.breakerId === id));
      expect(mine).toEqual(ascending(mine));
      expect(perBreaker(rec.deduped).get(id)).toEqual(Array.from({ length: counts.get(id)! }, (_, n) => n));
    }
    expect(by.a + by.b).toBe(total);
  });

  it('a stopped relay leaves no timer: nothing is delivered after the app closed', async () => {
    const t = await bootTestApp({ RECLOSER_OUTBOX_POLL_MS: '20' }); // relay on from bootstrap
    apps.push(t);
    const o = outboxOf(t);
    const rec = recorder();
    rec.on(o.consumers);
    expect(o.relay.isRunning).toBe(true);
    await o.commit([draft(breakerIds(1)[0]!, 0)]);
    await waitFor('the first event', () => rec.raw.length === 1);
    await t.stop();
    expect(o.relay.isRunning).toBe(false);
    await t.db.query(
      `INSERT INTO outbox_events (breaker_id, type, at, data) VALUES (gen_random_uuid(), 'quorum.near', now(), '{}')`,
    );
    await sleep(200);
    expect(rec.raw).toHaveLength(1);
  });

  it('prune deletes published events past the retention, never an unpublished one', async () => {
    const t = await boot();
    const o = outboxOf(t);
    const [x] = breakerIds(1) as [string];
    await o.commit([0, 1, 2, 3].map((n) => draft(x, n)));
    const old = new Date(Date.now() - OUTBOX_RETENTION_MS - 60_000);
    const rows = await rowsOf(t);
    // seq 1, 2: published long ago; seq 3: published just now; seq 4: unpublished and old
    await t.db.query('UPDATE outbox_events SET published_at = $1 WHERE seq = ANY($2::bigint[])', [
      old,
      [rows[0]!.seq, rows[1]!.seq],
    ]);
    await t.db.query('UPDATE outbox_events SET published_at = now() WHERE seq = $1', [rows[2]!.seq]);
    await t.db.query('UPDATE outbox_events SET created_at = $1 WHERE seq = $2', [old, rows[3]!.seq]);
    expect(await o.relay.prune()).toBe(2);
    expect((await rowsOf(t)).map((r) => r.seq)).toEqual([rows[2]!.seq, rows[3]!.seq]);
  });
});
