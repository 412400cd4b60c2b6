import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shifts seen from real traffic (issue 14): each heartbeat verdict's routed rates (requests/s the
 * instance moved to each other region); one authoritative shift state per region breaker (core
 * planShift's state and latest plan, stepped under that row's lock by any replica); and shift plan
 * phase changes as transparency-log leaves (issue 15), which have no transition row: a leaf is a
 * transition's or a shift phase's (breaker, shift_seq), never both.
 */
export class RegionShifts1765600000000 implements MigrationInterface {
  name = 'RegionShifts1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE verdicts ADD COLUMN routed jsonb`);
    await q.query(`
      CREATE TABLE region_shifts (
        breaker_id uuid PRIMARY KEY REFERENCES breakers (id) ON DELETE CASCADE,
        group_breaker_id uuid NOT NULL,
        source text NOT NULL,
        mode text NOT NULL,
        state jsonb NOT NULL,
        plan jsonb NOT NULL,
        allowed jsonb NOT NULL DEFAULT '{}',
        throttled text[] NOT NULL DEFAULT '{}',
        seq integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL,
        CONSTRAINT "CHK_region_shifts_mode" CHECK (mode IN ('idle', 'shifting', 'frozen', 'reversing'))
      )`);
    await q.query(`CREATE INDEX "IDX_region_shifts_group" ON region_shifts (group_breaker_id)`);
    await q.query(`ALTER TABLE log_leaves ALTER COLUMN transition_id DROP NOT NULL`);
    await q.query(`ALTER TABLE log_leaves ADD COLUMN shift_seq integer`);
    await q.query(`
      ALTER TABLE log_leaves ADD CONSTRAINT "CHK_log_leaves_kind"
        CHECK ((transition_id IS NULL) <> (shift_seq IS NULL))`);
    await q.query(`
      CREATE UNIQUE INDEX "UQ_log_leaves_shift" ON log_leaves (breaker_id, shift_seq) WHERE shift_seq IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM log_leaves WHERE shift_seq IS NOT NULL`);
    await q.query(`DROP INDEX "UQ_log_leaves_shift"`);
    await q.query(`ALTER TABLE log_leaves DROP CONSTRAINT "CHK_log_leaves_kind"`);
    await q.query(`ALTER TABLE log_leaves DROP COLUMN shift_seq`);
    await q.query(`ALTER TABLE log_leaves ALTER COLUMN transition_id SET NOT NULL`);
    await q.query(`DROP TABLE region_shifts`);
    await q.query(`ALTER TABLE verdicts DROP COLUMN routed`);
  }
}
