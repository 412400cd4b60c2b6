// The ports reconciliation needs (issue 11): the ledger of work-unit events and refunds, and the
// history of a breaker (global transitions, an instance's local open runs). Plain reads and
// writes; the refund rules are core's (ledger/Refund.ts). Times are the controller's clock (ms).
import type { GlobalTimeline, LedgerEvent } from '@recloser/core';

export interface StoredLedgerEvent extends LedgerEvent {
  group: string;
  receivedAt: number;
}

/** A refund as `judge` decides it (the store numbers it). */
export interface RefundDraft {
  group: string;
  eventId: string;
  workId: string;
  attempts: number;
  reclaims: number;
  reason: string;
}

/** A refund as stored and paged to fleets. */
export interface RefundRecord extends RefundDraft {
  refundId: string;
  instanceId: string;
  dependency: string;
  /** when it was issued (controller clock) */
  at: number;
}

export interface LedgerStore {
  /** Stores the events not already stored under (group, eventId); a replay changes nothing. */
  append(
    group: string,
    events: readonly LedgerEvent[],
    receivedAt: number,
  ): Promise<{ accepted: number; duplicates: number }>;
  /**
   * One pass over up to `limit` events not judged yet and stamped at or before `before`, oldest first,
   * claimed by one runner at a time across processes: `judge` returns their refunds; in one commit the
   * store writes each refund unless (group, eventId) was ever refunded, and marks the events judged.
   * Returns the refunds it wrote.
   */
  reconcile(
    before: number,
    limit: number,
    judge: (events: readonly StoredLedgerEvent[]) => Promise<RefundDraft[]>,
  ): Promise<{ judged: number; refunded: RefundRecord[] }>;
  /** A group's refunds in issue order after the cursor `after` (null: from the first); `next` resumes after the last. */
  refunds(
    group: string,
    after: string | null,
    limit: number,
  ): Promise<{ refunds: RefundRecord[]; next: string | null }>;
  /**
   * Drops judged events (and ended local runs) stamped before `eventsBefore`, and refunds issued before
   * `refundsBefore`; bounded per call. Returns how many rows went.
   */
  prune(bounds: { eventsBefore: number; refundsBefore: number }): Promise<number>;
}

/** One ended local open run as stored (core endedRun turns it into an interval). */
export interface StoredRun {
  openSince: number;
  lastSeenAt: number;
  nextSeenAt: number | null;
}

export interface BreakerHistory {
  /** the global state in force at `from`, then every change in (from, to] */
  timeline(breakerId: string, from: number, to: number): Promise<GlobalTimeline>;
  /**
   * The instance's ended local open runs on the breaker that may overlap [from, to], and its current
   * verdict row's open figures (null when it has none).
   */
  localRuns(
    breakerId: string,
    instanceId: string,
    from: number,
    to: number,
  ): Promise<{ ended: StoredRun[]; current: { openSince: number | null; lastSeenAt: number } | null }>;
}
