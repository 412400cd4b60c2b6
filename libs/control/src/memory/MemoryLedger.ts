// The ledger in memory, with the Postgres store's semantics: events kept once per (group, eventId),
// one reconciliation pass at a time (a promise chain stands in for the advisory lock), a refund
// written at most once per (group, eventId) ever, refunds paged by their issue sequence.
import type { LedgerEvent } from '@recloser/core';
import type { LedgerStore, RefundDraft, RefundRecord, StoredLedgerEvent } from '../ledgerPorts.js';

export class MemoryLedger implements LedgerStore {
  private readonly events = new Map<string, StoredLedgerEvent & { judged: boolean }>();
  /** keys of events not judged yet (a pass reads these, not every event ever stored) */
  private readonly pending = new Set<string>();
  /** every refund ever written, in issue order (index + 1 is its sequence) */
  readonly issued: RefundRecord[] = [];
  private readonly refunded = new Set<string>();
  private lock: Promise<unknown> = Promise.resolve();

  constructor(private readonly clock: { now(): number }) {}

  async append(
    group: string,
    events: readonly LedgerEvent[],
    receivedAt: number,
  ): Promise<{ accepted: number; duplicates: number }> {
    let accepted = 0;
    for (const e of events) {
      const key = `${group}\u0000${e.eventId}`;
      if (this.events.has(key)) continue;
      this.events.set(key, { ...e, group, receivedAt, judged: false });
      this.pending.add(key);
      accepted += 1;
    }
    return { accepted, duplicates: events.length - accepted };
  }

  reconcile(
    before: number,
    limit: number,
    judge: (events: readonly StoredLedgerEvent[]) => Promise<RefundDraft[]>,
  ): Promise<{ judged: number; refunded: RefundRecord[] }> {
    const run = async () => {
      const pending = [...this.pending]
        .map((key) => this.events.get(key)!)
        .filter((e) => e.at <= before)
        .sort((a, b) => a.at - b.at || (a.eventId < b.eventId ? -1 : 1))
        .slice(0, limit);
      const drafts = await judge(pending.map(({ judged: _, ...e }) => e));
      const byKey = new Map(pending.map((e) => [`${e.group}\u0000${e.eventId}`, e]));
      const written: RefundRecord[] = [];
      for (const d of drafts) {
        const key = `${d.group}\u0000${d.eventId}`;
        const e = byKey.get(key);
        if (!e) continue;
        if (this.refunded.has(key)) continue;
        this.refunded.add(key);
        const record: RefundRecord = {
          ...d,
          refundId: `refund-${this.issued.length + 1}`,
          instanceId: e.instanceId,
          dependency: e.dependency,
          at: this.clock.now(),
        };
        this.issued.push(record);
        written.push(record);
      }
      for (const e of pending) {
        e.judged = true;
        this.pending.delete(`${e.group}\u0000${e.eventId}`);
      }
      return { judged: pending.length, refunded: written };
    };
    const mine = this.lock.then(run, run);
    this.lock = mine.catch(() => undefined);
    return mine;
  }

  async refunds(
    group: string,
    after: string | null,
    limit: number,
  ): Promise<{ refunds: RefundRecord[]; next: string | null }> {
    const from = after === null ? 0 : Number(after);
    const out: RefundRecord[] = [];
    let last = after === null ? null : from;
    for (let seq = from + 1; seq <= this.issued.length && out.length < limit; seq++) {
      const r = this.issued[seq - 1]!;
      if (r.group !== group) continue;
      out.push(r);
      last = seq;
    }
    return { refunds: out, next: last === null ? null : String(last) };
  }

  async prune(bounds: { eventsBefore: number; refundsBefore: number }): Promise<number> {
    let n = 0;
    for (const [key, e] of this.events)
      if (e.judged && e.at < bounds.eventsBefore) {
        this.events.delete(key);
        n += 1;
      }
    // refunds stay in `issued` (their index is their cursor); the simulator's runs are short
    return n;
  }
}
