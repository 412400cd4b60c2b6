import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox of the event seam: events are written in the transaction that caused
 * them and relayed after commit (at least once, in seq order), so a crash between commit and
 * publish loses nothing.
 */
export class Outbox1764800600000 implements MigrationInterface {
  name = 'Outbox1764800600000';

  async up(q: QueryRunner): Promise<void> {
    // no foreign key on breaker_id: an event outlives nothing it describes, and the insert stays cheap
    await q.query(`
      CREATE TABLE outbox_events (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        breaker_id uuid NULL,
        type text NOT NULL,
        at timestamptz NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz NULL,
        CONSTRAINT "UQ_outbox_events_id" UNIQUE (id)
      )`);
    // the relay's only read: the unpublished backlog in seq order (small, whatever the table's size)
    await q.query(
      `CREATE INDEX "IDX_outbox_events_unpublished" ON outbox_events (seq) WHERE published_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox_events`);
  }
}
