import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation (issue 11): the fleets' work-unit events (idempotent by event id per group), the
 * refunds (at most one per event, ever: the unique key is what two runners or a restart meet), and
 * the local open runs the verdicts table forgets when an instance closes. The trigger only copies
 * facts (the run's first-seen time, its last open report, the next report); core endedRun reads
 * them, so no refund rule lives in SQL. It fires only on the rare verdict update that ends a run.
 */
export class Ledger1765300000000 implements MigrationInterface {
  name = 'Ledger1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ledger_events (
        group_name text NOT NULL,
        event_id text NOT NULL,
        work_id text NOT NULL,
        instance_id text NOT NULL,
        dependency text NOT NULL,
        kind text NOT NULL,
        outcome text,
        count integer NOT NULL DEFAULT 1,
        at timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        judged_at timestamptz,
        CONSTRAINT "PK_ledger_events" PRIMARY KEY (group_name, event_id),
        CONSTRAINT "CHK_ledger_events_kind" CHECK (kind IN ('attempt', 'reclaim')),
        CONSTRAINT "CHK_ledger_events_count" CHECK (count > 0)
      )`);
    await q.query(`CREATE INDEX "IDX_ledger_events_pending" ON ledger_events (at) WHERE judged_at IS NULL`);
    await q.query(
      `CREATE INDEX "IDX_ledger_events_judged" ON ledger_events (at) WHERE judged_at IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE ledger_refunds (
        seq bigserial PRIMARY KEY,
        refund_id uuid NOT NULL DEFAULT gen_random_uuid(),
        group_name text NOT NULL,
        event_id text NOT NULL,
        work_id text NOT NULL,
        instance_id text NOT NULL,
        dependency text NOT NULL,
        attempts integer NOT NULL,
        reclaims integer NOT NULL,
        reason text NOT NULL,
        at timestamptz NOT NULL,
        CONSTRAINT "UQ_ledger_refunds_event" UNIQUE (group_name, event_id),
        CONSTRAINT "UQ_ledger_refunds_refund_id" UNIQUE (refund_id),
        CONSTRAINT "CHK_ledger_refunds_counts" CHECK (attempts >= 0 AND reclaims >= 0 AND attempts + reclaims > 0)
      )`);
    await q.query(`CREATE INDEX "IDX_ledger_refunds_group_seq" ON ledger_refunds (group_name, seq)`);
    await q.query(`CREATE INDEX "IDX_ledger_refunds_at" ON ledger_refunds (at)`);
    await q.query(`
      CREATE TABLE local_open_runs (
        breaker_id uuid NOT NULL,
        instance_id text NOT NULL,
        open_since timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        next_seen_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX "IDX_local_open_runs_instance" ON local_open_runs (breaker_id, instance_id, open_since)`,
    );
    await q.query(`CREATE INDEX "IDX_local_open_runs_last_seen" ON local_open_runs (last_seen_at)`);
    await q.query(`
      CREATE FUNCTION record_local_open_run() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO local_open_runs (breaker_id, instance_id, open_since, last_seen_at, next_seen_at)
        VALUES (OLD.breaker_id, OLD.instance_id, OLD.open_since, OLD.reported_at,
                CASE WHEN TG_OP = 'UPDATE' THEN NEW.reported_at ELSE NULL END);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER "TRG_verdicts_run_ended" AFTER UPDATE OF open_since ON verdicts
      FOR EACH ROW WHEN (OLD.open_since IS NOT NULL AND NEW.open_since IS DISTINCT FROM OLD.open_since)
      EXECUTE FUNCTION record_local_open_run()`);
    await q.query(`
      CREATE TRIGGER "TRG_verdicts_run_deleted" AFTER DELETE ON verdicts
      FOR EACH ROW WHEN (OLD.open_since IS NOT NULL)
      EXECUTE FUNCTION record_local_open_run()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "TRG_verdicts_run_deleted" ON verdicts`);
    await q.query(`DROP TRIGGER "TRG_verdicts_run_ended" ON verdicts`);
    await q.query(`DROP FUNCTION record_local_open_run()`);
    await q.query(`DROP TABLE local_open_runs`);
    await q.query(`DROP TABLE ledger_refunds`);
    await q.query(`DROP TABLE ledger_events`);
  }
}
