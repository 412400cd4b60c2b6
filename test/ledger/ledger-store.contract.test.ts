// The LedgerStore port, one set of cases against both homes: the memory store the simulator runs
// and the Postgres store the controller runs (advisory lock, unique refund per event).
import { MemoryLedger, type LedgerStore, type RefundDraft } from '@recloser/control';
import type { LedgerEvent } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerRepository } from '../../apps/controller/src/ledger/ledger.repository.js';
import { createMigratedDatabase, type MigratedDatabase } from '../recovery/support/services.js';

const T = 1_700_000_000_000;
const ev = (id: string, at = T): LedgerEvent => ({
  eventId: id,
  workId: `w-${id}`,
  instanceId: 'i1',
  dependency: 'llm',
  kind: 'reclaim',
  at,
});
/** a judge that refunds every event it is given (the rules are core's; here only the store is tried) */
const refundAll = async (
  events: readonly { group: string; eventId: string; workId: string }[],
): Promise<RefundDraft[]> =>
  events.map((e) => ({
    group: e.group,
    eventId: e.eventId,
    workId: e.workId,
    attempts: 0,
    reclaims: 1,
    reason: 'test',
  }));

let db: MigratedDatabase;
beforeAll(async () => {
  db = await createMigratedDatabase('ledger_contract');
});
afterAll(async () => {
  await db?.drop();
});

const homes: [string, () => LedgerStore][] = [
  ['memory', () => new MemoryLedger({ now: () => T })],
  ['postgres', () => new LedgerRepository(db.dataSource)],
];

describe.each(homes)('LedgerStore contract: %s', (name, make) => {
  const group = `g-${name}`;

  it('stores an event once per (group, eventId): a replay is counted as a duplicate', async () => {
    const store = make();
    expect(await store.append(group, [ev('a'), ev('b')], T)).toEqual({ accepted: 2, duplicates: 0 });
    expect(await store.append(group, [ev('a'), ev('c')], T)).toEqual({ accepted: 1, duplicates: 1 });
    expect(await store.append(`${group}-other`, [ev('a')], T)).toEqual({ accepted: 1, duplicates: 0 });
  });

  it('judges only settled events, each once, and refunds each at most once even with runners racing', async () => {
    const store = make();
    const g = `${group}-race`;
    await store.append(
      g,
      Array.from({ length: 50 }, (_, i) => ev(`e${i}`, T - 1000)),
      T,
    );
    await store.append(g, [ev('late', T + 5000)], T);
    const passes = await Promise.all(
      Array.from({ length: 4 }, () => store.reconcile(T, 20, (events) => refundAll(events))),
    );
    const more = await store.reconcile(T, 100, (events) => refundAll(events));
    // other tests' settled events (one database for the Postgres home) are judged too: keep this group's
    const all = [...passes, more].flatMap((p) => p.refunded.map((r) => `${r.group}/${r.eventId}`));
    expect(new Set(all).size).toBe(all.length);
    const written = [...passes, more].flatMap((p) =>
      p.refunded.filter((r) => r.group === g).map((r) => r.eventId),
    );
    expect(written.filter((id) => id.startsWith('e'))).toHaveLength(50);
    expect(written).not.toContain('late');
    expect((await store.reconcile(T, 100, (events) => refundAll(events))).judged).toBe(0);
  });

  it('writes no refund for an event it did not claim, and none twice for a claimed one', async () => {
    const store = make();
    const g = `${group}-claim`;
    await store.append(g, [ev('x', T - 10)], T);
    const done = await store.reconcile(T, 10, async (events) => [
      ...(await refundAll(events)),
      ...(await refundAll(events)),
      { group: g, eventId: 'never-reported', workId: 'w', attempts: 1, reclaims: 0, reason: 'test' },
    ]);
    expect(done.refunded.map((r) => r.eventId)).toEqual(['x']);
  });

  it('pages refunds by a cursor that resumes after the last one, per group', async () => {
    const store = make();
    const g = `${group}-page`;
    await store.append(
      g,
      Array.from({ length: 5 }, (_, i) => ev(`p${i}`, T - 10)),
      T,
    );
    await store.reconcile(T, 100, (events) => refundAll(events.filter((e) => e.group === g)));
    const first = await store.refunds(g, null, 2);
    expect(first.refunds.map((r) => r.eventId)).toHaveLength(2);
    const rest = await store.refunds(g, first.next, 10);
    expect([...first.refunds, ...rest.refunds].map((r) => r.eventId).sort()).toEqual([
      'p0',
      'p1',
      'p2',
      'p3',
      'p4',
    ]);
    expect(await store.refunds(g, rest.next, 10)).toEqual({ refunds: [], next: rest.next });
    expect((await store.refunds(`${g}-none`, null, 10)).refunds).toEqual([]);
  });

  it('prunes judged events past their retention, never pending ones (a pruned id may be stored again)', async () => {
    const store = make();
    const g = `${group}-prune`;
    await store.append(g, [ev('judged', T - 100)], T);
    await store.reconcile(T, 1000, async () => []); // judged, nothing refunded
    await store.append(g, [ev('pending', T - 100)], T);
    await store.prune({ eventsBefore: T, refundsBefore: 0 });
    expect(await store.append(g, [ev('judged', T - 100), ev('pending', T - 100)], T)).toEqual({
      accepted: 1,
      duplicates: 1,
    });
  });
});
