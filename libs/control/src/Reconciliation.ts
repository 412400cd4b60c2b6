// Reconciliation (issue 11), written once for the controller and the simulator: work-unit events in,
// refunds out. Which events are refunded is core's (refundsOnce / refundReason over the breaker's
// global timeline and the instance's local open runs); this class gathers those inputs through the
// ports, lets the ledger store commit each refund at most once per event, and announces the
// refunds through the event seam.
import {
  currentRun,
  endedRun,
  judgeableBefore,
  ledgerEventTime,
  refundsOnce,
  LEDGER_EVENT_RETENTION_MS,
  LEDGER_REFUND_RETENTION_MS,
  type Clock,
  type GlobalTimeline,
  type Interval,
  type LedgerEvent,
  type RefundContext,
} from '@recloser/core';
import { ControlError } from './ControlError.js';
import type { ControlEventDraft } from './events.js';
import type {
  BreakerHistory,
  LedgerStore,
  RefundDraft,
  RefundRecord,
  StoredLedgerEvent,
} from './ledgerPorts.js';
import type { BreakerStore, ControlSettings, EventSink } from './ports.js';

/** events judged per store commit, and commits per run (the rest waits for the next run) */
export const RECONCILE_BATCH = 500;
export const RECONCILE_MAX_BATCHES = 20;

export interface ReconciliationPorts {
  ledger: LedgerStore;
  history: BreakerHistory;
  breakers: Pick<BreakerStore, 'find'>;
  events: EventSink;
  clock: Clock;
}

export interface ReconcileResult {
  judged: number;
  refunded: number;
}

export class Reconciliation {
  constructor(
    private readonly ports: ReconciliationPorts,
    private readonly settings: Pick<ControlSettings, 'heartbeatIntervalMs' | 'heartbeatTtlMs'>,
  ) {}

  /** one ticker period: how long instances may act on a stale snapshot */
  private get staleMs(): number {
    return this.settings.heartbeatIntervalMs;
  }

  /** How long after a moment the events around it become judgeable (core judgeableBefore). */
  get settleMs(): number {
    return -judgeableBefore(0, { heartbeatTtlMs: this.settings.heartbeatTtlMs, staleMs: this.staleMs });
  }

  /**
   * POST /v1/ledger/events: stores the events (idempotent by eventId); each `at` goes through core
   * ledgerEventTime first, and one refused time refuses the whole batch (nothing is stored).
   */
  async record(
    group: string,
    events: readonly LedgerEvent[],
  ): Promise<{ accepted: number; duplicates: number }> {
    const now = this.ports.clock.now();
    const timed = events.map((e, i) => {
      const t = ledgerEventTime(e.at, now);
      if ('problem' in t) throw new ControlError('bad_input', `events.${i}.at ${t.problem}`);
      return { ...e, at: t.at };
    });
    return this.ports.ledger.append(group, timed, now);
  }

  /** One reconciliation run: every settled, unjudged event (bounded per run), then old rows pruned. */
  async run(): Promise<ReconcileResult> {
    const total: ReconcileResult = { judged: 0, refunded: 0 };
    for (let b = 0; b < RECONCILE_MAX_BATCHES; b++) {
      const before = judgeableBefore(this.ports.clock.now(), {
        heartbeatTtlMs: this.settings.heartbeatTtlMs,
        staleMs: this.staleMs,
      });
      const breakerIds = new Map<string, string>();
      const done = await this.ports.ledger.reconcile(before, RECONCILE_BATCH, (events) =>
        this.judge(events, breakerIds),
      );
      total.judged += done.judged;
      total.refunded += done.refunded.length;
      await this.announce(done.refunded, breakerIds);
      if (done.judged < RECONCILE_BATCH) break;
    }
    const now = this.ports.clock.now();
    await this.ports.ledger.prune({
      eventsBefore: now - LEDGER_EVENT_RETENTION_MS,
      refundsBefore: now - LEDGER_REFUND_RETENTION_MS,
    });
    return total;
  }

  /** Core's refunds for one claimed batch, with each event's breaker history. */
  private async judge(
    events: readonly StoredLedgerEvent[],
    breakerIds: Map<string, string>,
  ): Promise<RefundDraft[]> {
    const stale = this.staleMs;
    const byBreaker = new Map<string, StoredLedgerEvent[]>();
    for (const e of events) {
      const key = `${e.group}\u0000${e.dependency}`;
      const list = byBreaker.get(key) ?? [];
      list.push(e);
      byBreaker.set(key, list);
    }
    const refunds: RefundDraft[] = [];
    for (const [key, batch] of byBreaker) {
      const { group, dependency } = batch[0]!;
      const breaker = await this.ports.breakers.find(group, dependency);
      if (breaker) breakerIds.set(key, breaker.id);
      const from = Math.min(...batch.map((e) => e.at)) - 2 * stale;
      const to = Math.max(...batch.map((e) => e.at)) + stale;
      const global: GlobalTimeline | null = breaker
        ? await this.ports.history.timeline(breaker.id, from, to)
        : null;
      const runsOf = new Map<string, Interval[]>();
      for (const e of batch) {
        if (runsOf.has(e.instanceId)) continue;
        runsOf.set(e.instanceId, breaker ? await this.runs(breaker.id, e.instanceId, from, to) : []);
      }
      const contextOf = (e: LedgerEvent): RefundContext => ({
        global,
        localOpen: runsOf.get(e.instanceId) ?? [],
        staleMs: stale,
      });
      refunds.push(...refundsOnce(batch, contextOf, new Set()).map((r) => ({ ...r, group })));
    }
    return refunds;
  }

  /** One ledger.refunded event per breaker and commit: counts, not every refund (they come by the thousand). */
  private async announce(refunded: readonly RefundRecord[], breakerIds: Map<string, string>): Promise<void> {
    const per = new Map<
      string,
      { group: string; dependency: string; refunds: number; attempts: number; reclaims: number }
    >();
    for (const r of refunded) {
      const key = `${r.group}\u0000${r.dependency}`;
      const s = per.get(key) ?? {
        group: r.group,
        dependency: r.dependency,
        refunds: 0,
        attempts: 0,
        reclaims: 0,
      };
      s.refunds += 1;
      s.attempts += r.attempts;
      s.reclaims += r.reclaims;
      per.set(key, s);
    }
    const now = this.ports.clock.now();
    const drafts: ControlEventDraft[] = [];
    for (const [key, s] of per) {
      const breakerId = breakerIds.get(key);
      if (breakerId) drafts.push({ type: 'ledger.refunded', breakerId, at: now, data: { ...s } });
    }
    if (drafts.length > 0) await this.ports.events.publish(drafts);
  }

  private async runs(breakerId: string, instanceId: string, from: number, to: number): Promise<Interval[]> {
    const ttl = this.settings.heartbeatTtlMs;
    const { ended, current } = await this.ports.history.localRuns(breakerId, instanceId, from, to);
    const out = ended.map((r) => endedRun(r, ttl));
    const now = current ? currentRun(current, this.ports.clock.now(), ttl) : null;
    if (now) out.push(now);
    return out;
  }

  /** GET /v1/ledger/refunds: a group's refunds after a cursor. */
  refunds(group: string, after: string | null, limit: number) {
    return this.ports.ledger.refunds(group, after, limit);
  }
}
