import { MigrationInterface, QueryRunner } from 'typeorm';

/** Global recovery: provider capacity pools, which dependency draws on which pool, and the durable fencing high-water mark. */
export class RecoveryPools1764684600000 implements MigrationInterface {
  name = 'RecoveryPools1764684600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pools (
        id text PRIMARY KEY,
        config jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // a dependency draws on at most one pool: the primary key makes a second claim fail
    await q.query(`
      CREATE TABLE pool_dependencies (
        dependency text PRIMARY KEY,
        pool_id text NOT NULL REFERENCES pools (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "IDX_pool_dependencies_pool_id" ON pool_dependencies (pool_id)`);
    // not a foreign key: default pools (a dependency nobody configured) are never stored, yet they fence
    await q.query(`
      CREATE TABLE probe_fencing (
        pool_id text PRIMARY KEY,
        reserved_through bigint NOT NULL CHECK (reserved_through > 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE probe_fencing`);
    await q.query(`DROP TABLE pool_dependencies`);
    await q.query(`DROP TABLE pools`);
  }
}
