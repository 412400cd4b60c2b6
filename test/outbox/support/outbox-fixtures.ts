// Shared pieces of the outbox tests: drafts, committed writes through the real OutboxService, and
// a recording consumer that keeps both what it was handed (raw) and what passed dedupe().
import { randomUUID } from 'node:crypto';
import type { ControlEvent, ControlEventDraft } from '@recloser/control';
import { DataSource } from 'typeorm';
import { dedupe, OutboxConsumers } from '../../../apps/controller/src/outbox/outbox-consumers.js';
import { OutboxRelay } from '../../../apps/controller/src/outbox/outbox.relay.js';
import { OutboxService } from '../../../apps/controller/src/outbox/outbox.service.js';
import type { TestApp } from '../../support/test-app.js';

export const breakerIds = (n: number): string[] => Array.from({ length: n }, () => randomUUID());

/** A breaker.transition draft; `n` numbers the breaker's events in the order they were written. */
export function draft(breakerId: string, n: number): ControlEventDraft {
  return {
    type: 'breaker.transition',
    breakerId,
    at: 1_764_800_000_000 + n,
    data: { n, from: 'closed', to: 'open', actor: 'quorum', figures: { open: 3, live: 4 } },
  };
}

export interface Outbox {
  db: DataSource;
  service: OutboxService;
  relay: OutboxRelay;
  consumers: OutboxConsumers;
  /** appends inside a transaction that commits, then kicks (what the Postgres adapter does) */
  commit(drafts: readonly ControlEventDraft[]): Promise<void>;
}

export function outboxOf(t: TestApp): Outbox {
  const db = t.app.get(DataSource);
  const service = t.app.get(OutboxService);
  return {
    db,
    service,
    relay: t.app.get(OutboxRelay),
    consumers: t.app.get(OutboxConsumers),
    async commit(drafts) {
      await db.transaction((manager) => service.append(manager, drafts));
      service.kick();
    },
  };
}

export interface Recorder {
  raw: ControlEvent[];
  deduped: ControlEvent[];
  /** register on one or more apps' registries (one recorder shared by several relays) */
  on(consumers: OutboxConsumers, name?: string): void;
}

export function recorder(): Recorder {
  const raw: ControlEvent[] = [];
  const deduped: ControlEvent[] = [];
  const inner = dedupe((e) => void deduped.push(e));
  return {
    raw,
    deduped,
    on(consumers, name = 'recorder') {
      consumers.register(name, async (e) => {
        raw.push(e);
        await inner(e);
      });
    },
  };
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Events of each breaker, in delivery order, as their `n`. */
export function perBreaker(events: readonly ControlEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) out.set(e.breakerId, [...(out.get(e.breakerId) ?? []), e.data.n as number]);
  return out;
}

export const seqs = (events: readonly ControlEvent[]): number[] => events.map((e) => e.seq);
export const ascending = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
