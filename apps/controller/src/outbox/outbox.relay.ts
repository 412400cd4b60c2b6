import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ControlEvent, ControlEventType } from '@recloser/control';
import { DataSource, EntityManager } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { OutboxConsumers } from './outbox-consumers.js';

/** Any fixed 64-bit number (not the migration lock's): the replica holding it relays, the others wait. */
export const OUTBOX_LOCK_KEY = 7_310_542_118_005n;
/** events per transaction: the lock and the transaction are held while a batch is delivered */
export const OUTBOX_BATCH = 100;
/** published events are kept this long (for inspection), then pruned */
export const OUTBOX_RETENTION_MS = 86_400_000;
const PRUNE_EVERY_MS = 60_000;
const PRUNE_LIMIT = 1000;

interface OutboxRow {
  seq: string;
  id: string;
  breaker_id: string | null;
  type: ControlEventType;
  at: Date;
  data: Record<string, unknown>;
}

type BatchOutcome = 'drained' | 'more' | 'busy' | 'stuck' | 'stopped';

export function toControlEvent(row: OutboxRow): ControlEvent {
  return {
    id: row.id,
    seq: Number(row.seq),
    at: row.at.getTime(),
    breakerId: row.breaker_id ?? '',
    type: row.type,
    data: row.data,
  };
}

/**
 * Delivers unpublished outbox events, in seq order, to every registered consumer, then marks them
 * published in the same transaction. One replica at a time: each batch runs in a transaction that
 * first takes pg_try_advisory_xact_lock, so two relays never deliver the same batch nor overtake
 * each other (a replica that finds the lock taken leaves the work to the holder and polls again).
 * A consumer that throws stops the batch at that event: it and the later ones are delivered again
 * (to every consumer) next round, so no consumer sees an event of a breaker before an earlier one.
 * Hence at least once: consumers dedupe by id (see dedupe()).
 * Order is per breaker: a breaker's events are written under its row lock, so their seqs commit in
 * order; across breakers a lower seq whose transaction committed later is delivered after a higher one.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private lastPruneAt = 0;
  /** the event a consumer last failed on and how often, so a stuck event is logged, not every retry */
  private stuckOn: { key: string; times: number } | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly consumers: OutboxConsumers,
    private readonly config: ControllerConfig,
  ) {}

  onApplicationBootstrap(): void {
    // consumers registered in constructors / onModuleInit, all of which ran before this
    if (this.config.outboxRelay) this.start();
  }

  // before, not on, application shutdown: TypeORM closes its pool in onApplicationShutdown, and an
  // in-flight batch must finish (or roll back) on a live connection
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  get isRunning(): boolean {
    return this.started;
  }

  /** Starts relaying now (the backlog a previous process left, first) and then every poll. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.kick();
  }

  /** Stops polling and waits for the round in flight; no timer is left behind. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs a round now; during a round, one more right after it (its events may have missed the read). */
  kick(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.round();
      } while (this.again && this.started);
    } finally {
      this.running = null;
      if (this.started) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.kick();
        }, this.config.outboxPollMs);
        this.timer.unref();
      }
    }
  }

  /** Batches until the backlog is empty, a consumer is stuck, or another replica holds the lock. */
  private async round(): Promise<void> {
    try {
      while (this.started && (await this.batch()) === 'more');
      if (this.started && Date.now() - this.lastPruneAt >= PRUNE_EVERY_MS) {
        this.lastPruneAt = Date.now();
        await this.prune();
      }
    } catch (err) {
      // the database is away or the commit failed: delivered events come again (consumers dedupe)
      this.logger.warn(`outbox relay round failed: ${(err as Error).message}`);
    }
  }

  private batch(): Promise<BatchOutcome> {
    return this.db.transaction(async (manager: EntityManager): Promise<BatchOutcome> => {
      const [lock] = (await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        OUTBOX_LOCK_KEY.toString(),
      ])) as { locked: boolean }[];
      if (!lock?.locked) return 'busy';
      // read after the lock: the previous holder's marks are committed by now
      const rows = (await manager.query(
        `SELECT seq, id, breaker_id, type, at, data FROM outbox_events
          WHERE published_at IS NULL ORDER BY seq LIMIT $1`,
        [OUTBOX_BATCH],
      )) as OutboxRow[];
      const delivered: string[] = [];
      let outcome: BatchOutcome = rows.length === OUTBOX_BATCH ? 'more' : 'drained';
      for (const row of rows) {
        if (!this.started) {
          outcome = 'stopped';
          break;
        }
        if (!(await this.deliver(toControlEvent(row)))) {
          outcome = 'stuck';
          break;
        }
        delivered.push(row.seq);
      }
      if (delivered.length > 0) {
        await manager.query('UPDATE outbox_events SET published_at = now() WHERE seq = ANY($1::bigint[])', [
          delivered,
        ]);
      }
      return outcome;
    });
  }

  /** To every consumer in turn; false when one threw (the event stays unpublished). */
  private async deliver(event: ControlEvent): Promise<boolean> {
    for (const [name, consume] of this.consumers.list()) {
      try {
        await consume(event);
      } catch (err) {
        const key = `${event.id}/${name}`;
        this.stuckOn = this.stuckOn?.key === key ? { key, times: this.stuckOn.times + 1 } : { key, times: 1 };
        const { times } = this.stuckOn;
        if ((times & (times - 1)) === 0) {
          // 1st, 2nd, 4th, 8th … failure: a stuck consumer shows without flooding the log
          this.logger.warn(
            `outbox consumer "${name}" failed on event ${event.seq} (${event.type}, ${times}x); ` +
              `it and later events are retried: ${(err as Error).message}`,
          );
        }
        return false;
      }
    }
    this.stuckOn = null;
    return true;
  }

  /** Deletes published events older than the retention, a bounded number per call; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    // any replica may prune: relays never touch published rows, and two deletes of a row are harmless
    const [, deleted] = (await this.db.query(
      `DELETE FROM outbox_events WHERE seq IN (
         SELECT seq FROM outbox_events WHERE published_at < $1 ORDER BY seq LIMIT $2)`,
      [new Date(now - OUTBOX_RETENTION_MS), PRUNE_LIMIT],
    )) as [unknown, number | undefined];
    return Number(deleted ?? 0);
  }
}
