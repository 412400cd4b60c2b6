import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ramp history needs both ends of a step change: the transition log records the step it left. */
export class TransitionFromStep1764691200000 implements MigrationInterface {
  name = 'TransitionFromStep1764691200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transitions ADD COLUMN from_step integer NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE transitions DROP COLUMN from_step`);
  }
}
