import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operators' log of configuration changes made from the dashboard (a pool's budgets and steps,
 * a group's quorum), each with its reason. Breaker actions are in the transition log already.
 */
export class OperatorLog1765100600000 implements MigrationInterface {
  name = 'OperatorLog1765100600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE operator_log (
        seq bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        kind text NOT NULL,
        target text NOT NULL,
        reason text NOT NULL,
        change jsonb NOT NULL,
        CONSTRAINT "CHK_operator_log_kind" CHECK (kind IN ('pool', 'quorum'))
      )`);
    await q.query(`CREATE INDEX "IDX_operator_log_target" ON operator_log (kind, target, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE operator_log`);
  }
}
