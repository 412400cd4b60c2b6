import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Provable decisions: the append-only Merkle log of transitions (one leaf per transition row, its
 * exact canonical bytes stored), the single-row head that serialises appends across replicas, the
 * signed checkpoints, quorum certificates, the controller's signing keys (old ones kept for
 * verification), the instances' registered verdict keys and their latest signed verdict per breaker.
 */
export class TransparencyLog1765500000000 implements MigrationInterface {
  name = 'TransparencyLog1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE log_leaves (
        idx bigint PRIMARY KEY,
        breaker_id uuid NOT NULL,
        transition_id bigint NOT NULL,
        leaf bytea NOT NULL,
        leaf_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "UQ_log_leaves_transition" UNIQUE (transition_id),
        CONSTRAINT "CHK_log_leaves_hash" CHECK (octet_length(leaf_hash) = 32)
      )`);
    await q.query(`CREATE INDEX "IDX_log_leaves_breaker" ON log_leaves (breaker_id, idx)`);
    await q.query(`
      CREATE TABLE log_head (
        id smallint PRIMARY KEY DEFAULT 1,
        size bigint NOT NULL,
        CONSTRAINT "CHK_log_head_one_row" CHECK (id = 1)
      )`);
    await q.query(`INSERT INTO log_head (id, size) VALUES (1, 0)`);
    await q.query(`
      CREATE TABLE log_checkpoints (
        size bigint PRIMARY KEY,
        root bytea NOT NULL,
        note text NOT NULL,
        key_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE quorum_certificates (
        transition_id bigint PRIMARY KEY,
        breaker_id uuid NOT NULL,
        digest char(64) NOT NULL,
        envelope jsonb NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_quorum_certificates_breaker" ON quorum_certificates (breaker_id)`);
    await q.query(`
      CREATE TABLE signing_keys (
        key_id text PRIMARY KEY,
        public_key bytea NOT NULL,
        private_pem text,
        source text NOT NULL,
        first_used_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "CHK_signing_keys_source" CHECK (source IN ('configured', 'generated'))
      )`);
    await q.query(`
      CREATE TABLE instance_keys (
        key_id text PRIMARY KEY,
        group_name text NOT NULL,
        instance_id text NOT NULL,
        public_key bytea NOT NULL,
        fleet_key_id uuid,
        last_seq bigint NOT NULL DEFAULT -1,
        registered_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "IDX_instance_keys_instance" ON instance_keys (group_name, instance_id)`);
    await q.query(`ALTER TABLE fleet_groups ADD COLUMN identity text NOT NULL DEFAULT 'off'
      CONSTRAINT "CHK_fleet_groups_identity" CHECK (identity IN ('off', 'optional', 'required'))`);
    await q.query(`
      CREATE TABLE signed_verdicts (
        group_name text NOT NULL,
        dependency text NOT NULL,
        instance_id text NOT NULL,
        key_id text NOT NULL,
        seq bigint NOT NULL,
        epoch integer NOT NULL,
        envelope jsonb NOT NULL,
        signed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_name, dependency, instance_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE signed_verdicts`);
    await q.query(`ALTER TABLE fleet_groups DROP COLUMN identity`);
    await q.query(`DROP TABLE instance_keys`);
    await q.query(`DROP TABLE signing_keys`);
    await q.query(`DROP TABLE quorum_certificates`);
    await q.query(`DROP TABLE log_checkpoints`);
    await q.query(`DROP TABLE log_head`);
    await q.query(`DROP TABLE log_leaves`);
  }
}
