// The fleet's side of reconciliation (issue 11): report work-unit attempts and reclaims to the
// controller's ledger, and apply the refunds it issues to the fleet's own counters, one callback per
// refund, from a cursor the caller persists. Not on any hot path: a job the fleet runs now and then.
import type { LedgerEvent, RefundDecision } from '@recloser/core';
import { MAX_LEDGER_EVENTS_PER_REQUEST } from '@recloser/core';
import { TransportError } from '../errors/Errors.js';

export interface LedgerClientOptions {
  /** base URL of the controller, e.g. http://127.0.0.1:3000 */
  url: string;
  /** fleet key of the group */
  key: string;
  group: string;
  /** per-request timeout (default 5 s) */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** One event as the fleet's queue saw it (core LedgerEvent); `at` is a Date or an ISO-8601 string. */
export type LedgerEventInput = Omit<LedgerEvent, 'at'> & { at: Date | string };

/** A refund as GET /v1/ledger/refunds pages it: core's decision, numbered, with the event's origin. */
export type LedgerRefund = RefundDecision & {
  refundId: string;
  instanceId: string;
  dependency: string;
  /** when it was issued (ISO-8601) */
  at: string;
};

/** Where the caller keeps the refund cursor (a row next to its queue, a file, …). */
export interface RefundCursorStore {
  load(): Promise<string | null>;
  save(next: string): Promise<void>;
}

export interface ApplyRefundsOptions {
  cursor: RefundCursorStore;
  /**
   * Applies one refund to the fleet's counters. Called at least once per refund: a crash after
   * `apply` and before the cursor is saved repeats the page, so make it idempotent by `refundId`
   * (the README's example records applied ids in the same transaction as the counters).
   */
  apply(refund: LedgerRefund): Promise<void>;
  /** refunds per page (default 500) and pages per call (default 100): a call is bounded */
  pageSize?: number;
  maxPages?: number;
  signal?: AbortSignal;
}

export class LedgerClient {
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: LedgerClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  /** Reports events in requests of at most the API's bound; a replay of any of them changes nothing. */
  async report(
    events: readonly LedgerEventInput[],
    signal?: AbortSignal,
  ): Promise<{ accepted: number; duplicates: number }> {
    const total = { accepted: 0, duplicates: 0 };
    for (let i = 0; i < events.length; i += MAX_LEDGER_EVENTS_PER_REQUEST) {
      const chunk = events.slice(i, i + MAX_LEDGER_EVENTS_PER_REQUEST).map((e) => ({
        ...e,
        at: typeof e.at === 'string' ? e.at : e.at.toISOString(),
      }));
      const got = await this.call<{ accepted: number; duplicates: number }>(
        'POST',
        '/v1/ledger/events',
        { group: this.options.group, events: chunk },
        signal,
      );
      total.accepted += got.accepted;
      total.duplicates += got.duplicates;
    }
    return total;
  }

  /** Pages the refunds after the stored cursor, applies each, saves the cursor after each page. */
  async applyRefunds(opts: ApplyRefundsOptions): Promise<{ applied: number; cursor: string | null }> {
    const pageSize = opts.pageSize ?? 500;
    const maxPages = opts.maxPages ?? 100;
    let cursor = await opts.cursor.load();
    let applied = 0;
    for (let page = 0; page < maxPages; page++) {
      const query = new URLSearchParams({ group: this.options.group, limit: String(pageSize) });
      if (cursor !== null) query.set('after', cursor);
      const got = await this.call<{ refunds: LedgerRefund[]; next: string | null }>(
        'GET',
        `/v1/ledger/refunds?${query.toString()}`,
        undefined,
        opts.signal,
      );
      for (const refund of got.refunds) {
        await opts.apply(refund);
        applied += 1;
      }
      if (got.next !== null && got.next !== cursor) {
        await opts.cursor.save(got.next);
        cursor = got.next;
      }
      if (got.refunds.length < pageSize) break;
    }
    return { applied, cursor };
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchFn(this.base + path, {
        method,
        headers: {
          authorization: `Bearer ${this.options.key}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (cause) {
      throw new TransportError(`${method} ${path.split('?')[0]}: controller unreachable`, null, null, {
        cause,
      });
    }
    const text = await res.text().catch(() => '');
    if (!res.ok)
      throw new TransportError(
        `${method} ${path.split('?')[0]}: ${res.status} ${text.slice(0, 300)}`,
        res.status,
        null,
      );
    return JSON.parse(text) as T;
  }
}
