import { MigrationInterface, QueryRunner } from 'typeorm';

/** The spine: fleet keys, groups, instances, breakers, their verdicts and the hash-chained transition log. */
export class Spine1764684000000 implements MigrationInterface {
  name = 'Spine1764684000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE fleet_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        key_hash char(64) NOT NULL,
        groups text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_fleet_keys_key_hash" UNIQUE (key_hash)
      )`);
    await q.query(`
      CREATE TABLE fleet_groups (
        group_name text PRIMARY KEY,
        quorum_fraction double precision NULL CHECK (quorum_fraction > 0 AND quorum_fraction <= 1),
        quorum_min_open integer NULL CHECK (quorum_min_open >= 1),
        first_seen_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE instances (
        group_name text NOT NULL,
        instance_id text NOT NULL,
        region text NOT NULL,
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        CONSTRAINT "PK_instances" PRIMARY KEY (group_name, instance_id)
      )`);
    await q.query(`CREATE INDEX "IDX_instances_group_last_seen" ON instances (group_name, last_seen_at)`);
    await q.query(`
      CREATE TABLE breakers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        group_name text NOT NULL,
        dependency text NOT NULL,
        region text NULL,
        pool_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('closed', 'open', 'probing', 'ramping')),
        epoch integer NOT NULL DEFAULT 0,
        global_state jsonb NOT NULL,
        quorum jsonb NOT NULL DEFAULT '{"open":0,"live":0,"threshold":0}',
        formed_by text[] NOT NULL DEFAULT '{}',
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_breakers_group_dependency" UNIQUE (group_name, dependency)
      )`);
    await q.query(`CREATE INDEX "IDX_breakers_state" ON breakers (state)`);
    await q.query(`CREATE INDEX "IDX_breakers_pool_id" ON breakers (pool_id)`);
    await q.query(`
      CREATE TABLE verdicts (
        breaker_id uuid NOT NULL REFERENCES breakers (id) ON DELETE CASCADE,
        instance_id text NOT NULL,
        region text NOT NULL,
        state text NOT NULL CHECK (state IN ('closed', 'open', 'half_open', 'paused', 'fallback')),
        open_since timestamptz NULL,
        reported_since text NULL,
        evidence jsonb NOT NULL,
        demand jsonb NULL,
        reported_at timestamptz NOT NULL,
        CONSTRAINT "PK_verdicts" PRIMARY KEY (breaker_id, instance_id)
      )`);
    await q.query(`CREATE INDEX "IDX_verdicts_breaker_reported_at" ON verdicts (breaker_id, reported_at)`);
    await q.query(`
      CREATE TABLE transitions (
        id bigserial PRIMARY KEY,
        breaker_id uuid NOT NULL REFERENCES breakers (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        from_state text NOT NULL,
        to_state text NOT NULL,
        epoch integer NOT NULL,
        step integer NULL,
        actor text NOT NULL,
        reason text NOT NULL,
        figures jsonb NOT NULL DEFAULT '{}',
        formed_by text[] NOT NULL DEFAULT '{}',
        at timestamptz NOT NULL,
        prev_hash char(64) NOT NULL,
        hash char(64) NOT NULL,
        CONSTRAINT "UQ_transitions_breaker_seq" UNIQUE (breaker_id, seq)
      )`);
    await q.query(`CREATE INDEX "IDX_transitions_at" ON transitions (at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE transitions`);
    await q.query(`DROP TABLE verdicts`);
    await q.query(`DROP TABLE breakers`);
    await q.query(`DROP TABLE instances`);
    await q.query(`DROP TABLE fleet_groups`);
    await q.query(`DROP TABLE fleet_keys`);
  }
}
