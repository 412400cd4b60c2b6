import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Archival of idle breakers and groups (issue 9): a row is marked, not deleted. Deleting a breaker
 * would cascade to its transitions (the signed, hash-chained audit log) and a heartbeat would bring
 * it back under a new id with a new chain; a mark keeps both, and lists skip marked rows.
 * `fleet_groups.last_live_at` remembers a group's last live instance after its presence rows are
 * pruned (an hour), so "idle for days" can be judged at all.
 */
export class Archival1764900000000 implements MigrationInterface {
  name = 'Archival1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE breakers ADD COLUMN archived_at timestamptz NULL`);
    await q.query(`
      ALTER TABLE fleet_groups
        ADD COLUMN archived_at timestamptz NULL,
        ADD COLUMN last_live_at timestamptz NULL`);
    // the lists' keyset over listed breakers stays an index range however many are archived
    await q.query(`
      CREATE INDEX "IDX_breakers_listed" ON breakers (group_name, dependency, scope_kind, scope_value)
        WHERE archived_at IS NULL`);
    // the archive job's look for archived breakers that heard from an instance again
    await q.query(
      `CREATE INDEX "IDX_breakers_archived_at" ON breakers (archived_at) WHERE archived_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_breakers_archived_at"`);
    await q.query(`DROP INDEX "IDX_breakers_listed"`);
    await q.query(`ALTER TABLE fleet_groups DROP COLUMN last_live_at, DROP COLUMN archived_at`);
    await q.query(`ALTER TABLE breakers DROP COLUMN archived_at`);
  }
}
