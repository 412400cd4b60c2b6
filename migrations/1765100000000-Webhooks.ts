import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook alerts (issue 12): subscriptions, and one delivery row per (subscription, event). The
 * unique (subscription_id, event_id) is where at-least-once relaying of the event seam is
 * deduplicated durably: an event relayed twice (or by two replicas) makes one delivery, one alert.
 * The secret signs payloads, so it is stored as given (the API never returns it).
 */
export class Webhooks1765100000000 implements MigrationInterface {
  name = 'Webhooks1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_subscriptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        url text NOT NULL,
        secret text NOT NULL,
        events text[] NOT NULL,
        format text NOT NULL DEFAULT 'json',
        description text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz NULL,
        CONSTRAINT "CHK_webhook_subscriptions_format" CHECK (format IN ('json', 'slack'))
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigserial NOT NULL,
        subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        breaker_id uuid NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        last_status_code int NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz NULL,
        CONSTRAINT "UQ_webhook_deliveries_subscription_event" UNIQUE (subscription_id, event_id),
        CONSTRAINT "CHK_webhook_deliveries_status" CHECK (status IN ('pending', 'retrying', 'delivered', 'dead'))
      )`);
    // the dashboard's "recent deliveries", newest first, optionally by status
    await q.query(`CREATE UNIQUE INDEX "IDX_webhook_deliveries_seq" ON webhook_deliveries (seq)`);
    await q.query(`CREATE INDEX "IDX_webhook_deliveries_status" ON webhook_deliveries (status, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhook_subscriptions`);
  }
}
