import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ControlEventDraft, EventSink } from '@recloser/control';
import { DataSource, EntityManager } from 'typeorm';
import { OutboxRelay } from './outbox.relay.js';

/** Postgres takes at most 65535 parameters per statement; 4 per row. */
const ROWS_PER_INSERT = 1000;

/**
 * Writes events to the outbox. `append` inside the transaction that caused them (a breaker
 * transition): they commit or roll back with it. `publish` (the control layer's EventSink) for
 * events not born in a transaction. The relay delivers them after commit.
 */
@Injectable()
export class OutboxService implements EventSink {
  private readonly waiting: {
    drafts: readonly ControlEventDraft[];
    resolve: () => void;
    reject: (err: unknown) => void;
  }[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly relay: OutboxRelay,
  ) {}

  /** Inserts the drafts through `manager` (the caller's transaction); call kick() after commit. */
  async append(manager: EntityManager, drafts: readonly ControlEventDraft[]): Promise<void> {
    for (let i = 0; i < drafts.length; i += ROWS_PER_INSERT) {
      const chunk = drafts.slice(i, i + ROWS_PER_INSERT);
      const params: unknown[] = [];
      const values = chunk.map((d) => {
        const n = params.length;
        // '' stands for "no breaker" (the column is nullable; the draft's type is not)
        params.push(d.breakerId === '' ? null : d.breakerId, d.type, new Date(d.at), JSON.stringify(d.data));
        return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}::jsonb)`;
      });
      // seq order is insertion order, so the drafts keep their order within a transaction
      await manager.query(
        `INSERT INTO outbox_events (breaker_id, type, at, data) VALUES ${values.join(', ')}`,
        params,
      );
    }
  }

  /**
   * EventSink: its own transaction, then a kick. Calls that arrive while one is being written go
   * together in the next transaction (a group commit: a busy lease endpoint announces its grants
   * in a few transactions, not one each); each call resolves once its drafts are committed, and
   * drafts keep the order of the calls.
   */
  publish(drafts: readonly ControlEventDraft[]): Promise<void> {
    if (drafts.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ drafts, resolve, reject });
      this.writing ??= this.writeWaiting();
    });
  }

  private async writeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        await this.db.transaction((manager) =>
          this.append(
            manager,
            batch.flatMap((c) => c.drafts),
          ),
        );
        this.kick();
        for (const c of batch) c.resolve();
      } catch (err) {
        for (const c of batch) c.reject(err);
      }
    }
    this.writing = null;
  }

  /** Wakes the relay now rather than at its next poll (after a commit that appended events). */
  kick(): void {
    this.relay.kick();
  }
}
