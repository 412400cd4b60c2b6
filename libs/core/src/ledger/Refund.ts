// Reconciliation's refund rules (issue 11): which work-unit events a fleet's queue should take back.
// A paused instance's claimed work returns through lease expiry, which counts a reclaim; an attempt
// made while the dependency was globally down counts an attempt. Flapping breakers must not push
// healthy units into poison quarantine, so both are refunded — once — while failures that say
// nothing about the dependency (client_error, auth, …) are never refunded when the breaker was
// closed, so genuine poison still reaches quarantine.
import { isSystemic } from '../outcome/Outcome.js';
import type { GlobalState, Outcome } from '../wire.js';

export type LedgerKind = 'attempt' | 'reclaim';
export const LEDGER_KINDS: readonly LedgerKind[] = ['attempt', 'reclaim'];

/** events one request may carry; more is refused (413) naming the bound */
export const MAX_LEDGER_EVENTS_PER_REQUEST = 1000;
/** the most attempts or reclaims one event may stand for */
export const MAX_LEDGER_EVENT_COUNT = 1000;
/**
 * An event older than this (controller clock) is refused: history is kept only so long, and an
 * event pruned after judgement cannot come back as new and be refunded again.
 */
export const MAX_LEDGER_EVENT_AGE_MS = 24 * 3_600_000;
/**
 * Judged events (and the history kept for them) are dropped this long after their time: twice the
 * age bound, so a replay of a dropped event is already refused at the door.
 */
export const LEDGER_EVENT_RETENTION_MS = 2 * MAX_LEDGER_EVENT_AGE_MS;
/** Refunds stay pageable this long after they were issued (a fleet's refund job may be down for days). */
export const LEDGER_REFUND_RETENTION_MS = 7 * 24 * 3_600_000;
/** An event stamped later than receipt by up to this much is taken as received now (clock skew). */
export const MAX_LEDGER_EVENT_SKEW_MS = 5 * 60_000;

/** One work-unit event as the ledger stores it (`at` on the controller's clock, ms). */
export interface LedgerEvent {
  eventId: string;
  workId: string;
  instanceId: string;
  dependency: string;
  kind: LedgerKind;
  /** the classified result of an attempt (absent for reclaims) */
  outcome?: Outcome;
  /** how many attempts or reclaims the event stands for (1 when absent) */
  count?: number;
  at: number;
}

/** A half-open time range [from, to]; `to` null = still running. */
export interface Interval {
  from: number;
  to: number | null;
}

/** A breaker's global state over time: the state before the first change, then each change. */
export interface GlobalTimeline {
  initial: GlobalState;
  changes: readonly { at: number; to: GlobalState }[];
}

export interface RefundContext {
  /** the breaker of the event's (group, dependency); null when the group has no such breaker */
  global: GlobalTimeline | null;
  /** the instance's locally open runs on that breaker (controller first-seen time to close) */
  localOpen: readonly Interval[];
  /**
   * one ticker period: instances act on a snapshot at most this old, so the window after a
   * transition (and around a local run, whose first-seen time lags the instance by up to a tick)
   * counts as open
   */
  staleMs: number;
}

export interface RefundDecision {
  eventId: string;
  workId: string;
  attempts: number;
  reclaims: number;
  reason: string;
}

/** Global states in which the group is paused: nobody but a designated prober calls. */
export const PAUSED_STATES: readonly GlobalState[] = ['open', 'probing'];

/**
 * Intervals in which the timeline's state is one of `states`, each extended by `staleMs` past its
 * end (instances still act on the old snapshot for one tick).
 */
export function windowsOf(
  timeline: GlobalTimeline,
  states: readonly GlobalState[],
  staleMs: number,
): Interval[] {
  const out: Interval[] = [];
  let current = timeline.initial;
  let from: number = Number.NEGATIVE_INFINITY;
  for (const change of timeline.changes) {
    if (states.includes(current)) out.push({ from, to: change.at + staleMs });
    current = change.to;
    from = change.at;
  }
  if (states.includes(current)) out.push({ from, to: null });
  return out;
}

function within(at: number, windows: readonly Interval[], before = 0): boolean {
  return windows.some((w) => at >= w.from - before && (w.to === null || at <= w.to));
}

/**
 * Why this event is refunded, or null when it is not:
 * - a reclaim while the breaker was not CLOSED globally (open, probing: the group paused; ramping:
 *   most instances still held back) or the instance's own breaker was locally open;
 * - an attempt that failed systemically (core isSystemic) while the breaker was globally OPEN or
 *   PROBING — the fleet was told to stop, and the failures are the outage's, not the unit's;
 * - never an attempt that failed otherwise, nor one that succeeded.
 * Window edges are inclusive, and each window lasts one tick (staleMs) past its end.
 */
export function refundReason(event: LedgerEvent, ctx: RefundContext): string | null {
  const { global, staleMs } = ctx;
  if (event.kind === 'reclaim') {
    if (global) {
      const notClosed = windowsOf(global, ['open', 'probing', 'ramping'], staleMs);
      if (within(event.at, notClosed)) return 'reclaim while the breaker was not closed globally';
    }
    // the controller first sees a local open up to one tick after the instance opened
    if (within(event.at, widen(ctx.localOpen, staleMs), staleMs))
      return "reclaim while the instance's breaker was locally open";
    return null;
  }
  if (event.outcome === undefined || !isSystemic(event.outcome) || !global) return null;
  if (within(event.at, windowsOf(global, PAUSED_STATES, staleMs)))
    return `attempt failed systemically (${event.outcome}) while the breaker was globally open`;
  return null;
}

function widen(runs: readonly Interval[], staleMs: number): Interval[] {
  return runs.map((r) => ({ from: r.from, to: r.to === null ? null : r.to + staleMs }));
}

/** The refund of one event, or null (refundReason decides; the counts are the event's). */
export function decideRefund(event: LedgerEvent, ctx: RefundContext): RefundDecision | null {
  const reason = refundReason(event, ctx);
  if (reason === null) return null;
  const n = event.count ?? 1;
  return {
    eventId: event.eventId,
    workId: event.workId,
    attempts: event.kind === 'attempt' ? n : 0,
    reclaims: event.kind === 'reclaim' ? n : 0,
    reason,
  };
}

/**
 * When an event may be judged: once every fact about its moment has reached the controller — the
 * instance's next heartbeat (within a TTL, written through when it is open), and the stale window
 * after a transition at that moment. Judged events are final: judged once, refunded at most once.
 */
export function judgeableBefore(now: number, timings: { heartbeatTtlMs: number; staleMs: number }): number {
  return now - timings.heartbeatTtlMs - timings.staleMs;
}

/**
 * An event's `at` on the controller's clock, or why it is refused: stamped in the future beyond the
 * skew allowance, or older than the ledger keeps history. A slightly early clock is read as now.
 */
export function ledgerEventTime(at: number, receivedAt: number): { at: number } | { problem: string } {
  if (!Number.isFinite(at)) return { problem: 'must be an ISO-8601 time' };
  if (at > receivedAt + MAX_LEDGER_EVENT_SKEW_MS)
    return { problem: `is more than ${MAX_LEDGER_EVENT_SKEW_MS} ms after the controller's clock` };
  if (at < receivedAt - MAX_LEDGER_EVENT_AGE_MS)
    return {
      problem: `is older than ${MAX_LEDGER_EVENT_AGE_MS} ms: the ledger keeps no history that far back`,
    };
  return { at: Math.min(at, receivedAt) };
}

/**
 * The refunds of a batch of events: one per refundable event id, none for an id already refunded
 * (`refunded`) or met earlier in the batch (a replay). The stores enforce the same once-per-event
 * rule with a unique key, so two runners racing on one batch still issue one refund.
 */
export function refundsOnce(
  events: readonly LedgerEvent[],
  contextOf: (event: LedgerEvent) => RefundContext,
  refunded: ReadonlySet<string>,
): RefundDecision[] {
  const seen = new Set<string>();
  const out: RefundDecision[] = [];
  for (const event of events) {
    if (seen.has(event.eventId) || refunded.has(event.eventId)) continue;
    seen.add(event.eventId);
    const refund = decideRefund(event, contextOf(event));
    if (refund) out.push(refund);
  }
  return out;
}

/**
 * What the controller knows of an instance's ended local open run: first seen open at `openSince`,
 * last heard open at `lastSeenAt`, next heard (closed, or open again after a lapse) at `nextSeenAt`
 * (null when its rows were pruned). The run is taken to last until the next report, but never past
 * one heartbeat TTL after the last open one: a silent instance is not open forever.
 */
export function endedRun(
  run: { openSince: number; lastSeenAt: number; nextSeenAt: number | null },
  heartbeatTtlMs: number,
): Interval {
  const bound = run.lastSeenAt + heartbeatTtlMs;
  return { from: run.openSince, to: run.nextSeenAt === null ? bound : Math.min(run.nextSeenAt, bound) };
}

/** The run of an instance's current verdict row: still going while live, else ended a TTL after its last report. */
export function currentRun(
  row: { openSince: number | null; lastSeenAt: number },
  now: number,
  heartbeatTtlMs: number,
): Interval | null {
  if (row.openSince === null) return null;
  return {
    from: row.openSince,
    to: now - row.lastSeenAt < heartbeatTtlMs ? null : row.lastSeenAt + heartbeatTtlMs,
  };
}
