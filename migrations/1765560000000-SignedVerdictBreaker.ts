import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receipts (issue 15): a stored signed verdict names the breaker whose epoch it was signed in — the
 * group's, or the region breaker its instance followed (core signedBreaker) — so a certificate takes
 * only verdicts signed in its own breaker's epochs. Null on older rows: the group's breaker.
 */
export class SignedVerdictBreaker1765560000000 implements MigrationInterface {
  name = 'SignedVerdictBreaker1765560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE signed_verdicts ADD COLUMN breaker_id uuid`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE signed_verdicts DROP COLUMN breaker_id`);
  }
}
