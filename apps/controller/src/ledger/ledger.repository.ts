// The ledger on Postgres: the control layer's LedgerStore. Events are kept once per (group,
// eventId) (INSERT … ON CONFLICT DO NOTHING); a reconciliation pass holds a transaction-scoped
// advisory lock, so runners on any replica judge one batch at a time and refunds are numbered in
// commit order (a reader paging by seq never skips one committed later); and a refund is written at
// most once per (group, eventId) ever (UQ_ledger_refunds_event), whoever races.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { LedgerStore, RefundDraft, RefundRecord, StoredLedgerEvent } from '@recloser/control';
import type { LedgerEvent, LedgerKind, Outcome } from '@recloser/core';
import { DataSource } from 'typeorm';
import { deleteInBatches } from '../database/delete-in-batches.js';

/** pg_advisory_xact_lock key of reconciliation passes */
const RECONCILE_LOCK = "hashtext('recloser:ledger-reconcile')";
/** rows pruned per table per reconciliation run */
const PRUNE_BATCH = 5000;

interface EventRow {
  group_name: string;
  event_id: string;
  work_id: string;
  instance_id: string;
  dependency: string;
  kind: LedgerKind;
  outcome: Outcome | null;
  count: number;
  at: Date;
  received_at: Date;
}

interface RefundRow {
  seq: string;
  refund_id: string;
  group_name: string;
  event_id: string;
  work_id: string;
  instance_id: string;
  dependency: string;
  attempts: number;
  reclaims: number;
  reason: string;
  at: Date;
}

@Injectable()
export class LedgerRepository implements LedgerStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async append(
    group: string,
    events: readonly LedgerEvent[],
    receivedAt: number,
  ): Promise<{ accepted: number; duplicates: number }> {
    if (events.length === 0) return { accepted: 0, duplicates: 0 };
    const rows: unknown[] = await this.db.query(
      `INSERT INTO ledger_events
         (group_name, event_id, work_id, instance_id, dependency, kind, outcome, count, at, received_at)
       SELECT $1, e.event_id, e.work_id, e.instance_id, e.dependency, e.kind, e.outcome, e.count, e.at, $10
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::timestamptz[])
         AS e (event_id, work_id, instance_id, dependency, kind, outcome, count, at)
       ORDER BY e.event_id
       ON CONFLICT (group_name, event_id) DO NOTHING
       RETURNING 1`,
      [
        group,
        events.map((e) => e.eventId),
        events.map((e) => e.workId),
        events.map((e) => e.instanceId),
        events.map((e) => e.dependency),
        events.map((e) => e.kind),
        events.map((e) => e.outcome ?? null),
        events.map((e) => e.count ?? 1),
        events.map((e) => new Date(e.at)),
        new Date(receivedAt),
      ],
    );
    return { accepted: rows.length, duplicates: events.length - rows.length };
  }

  reconcile(
    before: number,
    limit: number,
    judge: (events: readonly StoredLedgerEvent[]) => Promise<RefundDraft[]>,
  ): Promise<{ judged: number; refunded: RefundRecord[] }> {
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(${RECONCILE_LOCK})`);
      const rows: EventRow[] = await m.query(
        `SELECT group_name, event_id, work_id, instance_id, dependency, kind, outcome, count, at, received_at
         FROM ledger_events WHERE judged_at IS NULL AND at <= $1
         ORDER BY at, group_name, event_id LIMIT $2`,
        [new Date(before), limit],
      );
      if (rows.length === 0) return { judged: 0, refunded: [] };
      const events = rows.map(toEvent);
      const drafts = await judge(events);
      // only refunds of the claimed events: a judge cannot refund what this pass did not claim
      const byKey = new Map(events.map((e) => [`${e.group}\u0000${e.eventId}`, e]));
      const refunds = drafts.flatMap((d) => {
        const e = byKey.get(`${d.group}\u0000${d.eventId}`);
        return e ? [{ d, e }] : [];
      });
      let written: RefundRow[] = [];
      if (refunds.length > 0) {
        written = await m.query(
          `INSERT INTO ledger_refunds
             (group_name, event_id, work_id, instance_id, dependency, attempts, reclaims, reason, at)
           SELECT r.group_name, r.event_id, r.work_id, r.instance_id, r.dependency, r.attempts, r.reclaims, r.reason, now()
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[])
             WITH ORDINALITY AS r (group_name, event_id, work_id, instance_id, dependency, attempts, reclaims, reason, n)
           ORDER BY r.n
           ON CONFLICT (group_name, event_id) DO NOTHING
           RETURNING seq, refund_id, group_name, event_id, work_id, instance_id, dependency, attempts, reclaims, reason, at`,
          [
            refunds.map((r) => r.e.group),
            refunds.map((r) => r.e.eventId),
            refunds.map((r) => r.d.workId),
            refunds.map((r) => r.e.instanceId),
            refunds.map((r) => r.e.dependency),
            refunds.map((r) => r.d.attempts),
            refunds.map((r) => r.d.reclaims),
            refunds.map((r) => r.d.reason),
          ],
        );
      }
      await m.query(
        `UPDATE ledger_events e SET judged_at = now()
         FROM unnest($1::text[], $2::text[]) AS j (group_name, event_id)
         WHERE e.group_name = j.group_name AND e.event_id = j.event_id`,
        [events.map((e) => e.group), events.map((e) => e.eventId)],
      );
      return { judged: events.length, refunded: written.map(toRefund) };
    });
  }

  async refunds(
    group: string,
    after: string | null,
    limit: number,
  ): Promise<{ refunds: RefundRecord[]; next: string | null }> {
    const rows: RefundRow[] = await this.db.query(
      `SELECT seq, refund_id, group_name, event_id, work_id, instance_id, dependency, attempts, reclaims, reason, at
       FROM ledger_refunds WHERE group_name = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [group, after ?? '0', limit],
    );
    const last = rows[rows.length - 1];
    return { refunds: rows.map(toRefund), next: last ? String(last.seq) : after };
  }

  /** Judged events, ended local runs and refunds past their retention, one bounded batch each. */
  async prune(bounds: { eventsBefore: number; refundsBefore: number }): Promise<number> {
    const events = new Date(bounds.eventsBefore);
    const once = { batch: PRUNE_BATCH, batches: 1 };
    return (
      (await deleteInBatches(this.db, 'ledger_events', 'judged_at IS NOT NULL AND at < $1', [events], once)) +
      (await deleteInBatches(this.db, 'local_open_runs', 'last_seen_at < $1', [events], once)) +
      (await deleteInBatches(this.db, 'ledger_refunds', 'at < $1', [new Date(bounds.refundsBefore)], once))
    );
  }
}

function toEvent(r: EventRow): StoredLedgerEvent {
  return {
    group: r.group_name,
    eventId: r.event_id,
    workId: r.work_id,
    instanceId: r.instance_id,
    dependency: r.dependency,
    kind: r.kind,
    ...(r.outcome !== null ? { outcome: r.outcome } : {}),
    count: r.count,
    at: r.at.getTime(),
    receivedAt: r.received_at.getTime(),
  };
}

function toRefund(r: RefundRow): RefundRecord {
  return {
    refundId: r.refund_id,
    group: r.group_name,
    eventId: r.event_id,
    workId: r.work_id,
    instanceId: r.instance_id,
    dependency: r.dependency,
    attempts: r.attempts,
    reclaims: r.reclaims,
    reason: r.reason,
    at: r.at.getTime(),
  };
}
