import { Injectable } from '@nestjs/common';
import type { ControlEvent, EventConsumer } from '@recloser/control';

/**
 * The consumers the outbox relay delivers to, by name. Register in a constructor or onModuleInit:
 * the relay starts at application bootstrap, and an event relayed before a consumer registered is
 * not delivered to it again.
 */
@Injectable()
export class OutboxConsumers {
  private readonly byName = new Map<string, EventConsumer>();

  /** Returns a function that unregisters it. A name is registered once (a second call throws). */
  register(name: string, consumer: EventConsumer): () => void {
    if (this.byName.has(name)) throw new Error(`outbox consumer "${name}" is already registered`);
    this.byName.set(name, consumer);
    return () => {
      if (this.byName.get(name) === consumer) this.byName.delete(name);
    };
  }

  /** In registration order (the order the relay delivers each event in). */
  list(): [string, EventConsumer][] {
    return [...this.byName.entries()];
  }
}

export const DEDUPE_CAPACITY = 100_000;

/**
 * Delivery is at least once: an event comes again when a later consumer of the same event threw
 * (the relay retries it for every consumer) or when the relay's transaction failed after delivery.
 * This wrapper drops ids it has already seen, in memory: right for consumers whose effect lives in
 * this process (metrics, in-memory views), which is also the only state that sees such a redelivery
 * (after a crash the redelivery goes to a fresh process, and a fresh in-memory state). A consumer
 * with a durable, non-idempotent effect elsewhere (a webhook) must dedupe where the effect lands,
 * by the event's id. An id counts as seen only once the consumer returned, so a throw is retried.
 * The oldest ids are forgotten past `capacity`; a redelivery comes within a few batches, far sooner.
 * Not by seq: seqs of concurrent transactions commit out of order, so a lower seq can arrive later.
 */
export function dedupe(consumer: EventConsumer, capacity = DEDUPE_CAPACITY): EventConsumer {
  const seen = new Set<string>();
  return async (event: ControlEvent) => {
    if (seen.has(event.id)) return;
    await consumer(event);
    seen.add(event.id);
    // a Set iterates in insertion order: the first value is the oldest
    if (seen.size > capacity) seen.delete(seen.values().next().value!);
  };
}
