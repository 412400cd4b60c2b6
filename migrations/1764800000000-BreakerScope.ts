import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A breaker covers a scope: the whole group, or one failure domain in it (a region; later an
 * endpoint, a model, a credential), so narrower breakers live beside the group's. Two columns
 * rather than one "region:eu-west" text: the kind is checked by the database and queried without
 * parsing, and a value may hold any character (":" in an endpoint) without escaping. `region`
 * stays, generated from the scope, so it can never disagree with it (and SQL readers keep it).
 */
export class BreakerScope1764800000000 implements MigrationInterface {
  name = 'BreakerScope1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE breakers
        ADD COLUMN scope_kind text NOT NULL DEFAULT 'group',
        ADD COLUMN scope_value text NOT NULL DEFAULT ''`);
    // no code wrote a region so far; a row that has one covers that region
    await q.query(`
      UPDATE breakers SET scope_kind = 'region', scope_value = region
      WHERE region IS NOT NULL AND region <> ''`);
    await q.query(`
      ALTER TABLE breakers
        ADD CONSTRAINT "CHK_breakers_scope_kind"
          CHECK (scope_kind IN ('group', 'region', 'endpoint', 'model', 'credential')),
        ADD CONSTRAINT "CHK_breakers_scope_value" CHECK ((scope_kind = 'group') = (scope_value = ''))`);
    await q.query(`ALTER TABLE breakers DROP CONSTRAINT "UQ_breakers_group_dependency"`);
    await q.query(`
      ALTER TABLE breakers ADD CONSTRAINT "UQ_breakers_group_dependency_scope"
        UNIQUE (group_name, dependency, scope_kind, scope_value)`);
    await q.query(`ALTER TABLE breakers DROP COLUMN region`);
    await q.query(`
      ALTER TABLE breakers ADD COLUMN region text
        GENERATED ALWAYS AS (CASE WHEN scope_kind = 'region' THEN scope_value END) STORED`);
  }

  async down(q: QueryRunner): Promise<void> {
    // the old schema holds one breaker per (group, dependency) and has no column for other kinds:
    // keep the group's breaker (else one region's), drop the rest (their verdicts and transitions cascade)
    await q.query(`
      DELETE FROM breakers WHERE scope_kind NOT IN ('group', 'region') OR id IN (
        SELECT id FROM (
          SELECT id, row_number() OVER (
            PARTITION BY group_name, dependency ORDER BY (scope_kind = 'group') DESC, scope_value, id
          ) AS n
          FROM breakers WHERE scope_kind IN ('group', 'region')
        ) ranked WHERE n > 1)`);
    await q.query(`ALTER TABLE breakers DROP COLUMN region`);
    await q.query(`ALTER TABLE breakers ADD COLUMN region text NULL`);
    await q.query(`UPDATE breakers SET region = scope_value WHERE scope_kind = 'region'`);
    await q.query(`ALTER TABLE breakers DROP CONSTRAINT "UQ_breakers_group_dependency_scope"`);
    await q.query(
      `ALTER TABLE breakers ADD CONSTRAINT "UQ_breakers_group_dependency" UNIQUE (group_name, dependency)`,
    );
    await q.query(`ALTER TABLE breakers DROP COLUMN scope_value, DROP COLUMN scope_kind`);
  }
}
