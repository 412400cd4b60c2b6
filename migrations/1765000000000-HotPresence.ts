import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Heartbeat rows stay fast whether or not autovacuum runs (issue 10). Every heartbeat rewrites
 * verdicts.reported_at and instances.last_seen_at; an index on either makes every update a non-HOT
 * one (a new index entry each time, dead tuples in heap and index alike). Without them the updates
 * are heap-only when the page has room, which a fill factor of 70 leaves. The reads that used those
 * indexes walk the primary key of one breaker (counts) or run once a minute (pruning, archival);
 * the periodic look for trouble gets a partial index on locally open verdicts, whose `state`
 * changes only when an instance's own breaker does.
 */
export class HotPresence1765000000000 implements MigrationInterface {
  name = 'HotPresence1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS "IDX_verdicts_breaker_reported_at"`);
    await q.query(`DROP INDEX IF EXISTS "IDX_instances_group_last_seen"`);
    // core isLocallyOpen: open and half_open (test/control pins the presence SQL to core)
    await q.query(
      `CREATE INDEX "IDX_verdicts_locally_open" ON verdicts (breaker_id) WHERE state IN ('open', 'half_open')`,
    );
    await q.query(`ALTER TABLE verdicts SET (fillfactor = 70)`);
    await q.query(`ALTER TABLE instances SET (fillfactor = 70)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE instances RESET (fillfactor)`);
    await q.query(`ALTER TABLE verdicts RESET (fillfactor)`);
    await q.query(`DROP INDEX "IDX_verdicts_locally_open"`);
    await q.query(`CREATE INDEX "IDX_instances_group_last_seen" ON instances (group_name, last_seen_at)`);
    await q.query(`CREATE INDEX "IDX_verdicts_breaker_reported_at" ON verdicts (breaker_id, reported_at)`);
  }
}
