import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { WebhookEventType } from './webhook-events.js';

export type WebhookFormat = 'json' | 'slack';
export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'dead';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying', 'delivered', 'dead'];

export interface SubscriptionRow {
  id: string;
  url: string;
  events: WebhookEventType[];
  format: WebhookFormat;
  description: string | null;
  createdAt: Date;
}

export interface DeliveryRow {
  id: string;
  seq: number;
  subscriptionId: string;
  eventId: string;
  eventType: WebhookEventType;
  breakerId: string | null;
  payload: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
}

const SUBSCRIPTION_COLUMNS = `id, url, events, format, description, created_at AS "createdAt"`;
const DELIVERY_COLUMNS = `id, seq::float8 AS seq, subscription_id AS "subscriptionId", event_id AS "eventId", event_type AS "eventType",
  breaker_id AS "breakerId", payload, status, attempts, last_status_code AS "lastStatusCode",
  last_error AS "lastError", created_at AS "createdAt", updated_at AS "updatedAt", delivered_at AS "deliveredAt"`;

/** Webhook subscriptions and deliveries on Postgres (raw SQL; the secret is read only to sign). */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async create(s: {
    url: string;
    secret: string;
    events: readonly string[];
    format: WebhookFormat;
    description: string | null;
  }): Promise<SubscriptionRow> {
    const [row] = (await this.db.query(
      `INSERT INTO webhook_subscriptions (url, secret, events, format, description)
       VALUES ($1, $2, $3, $4, $5) RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [s.url, s.secret, s.events, s.format, s.description],
    )) as SubscriptionRow[];
    return row!;
  }

  /** Live subscriptions, oldest first (a deployment has a handful). */
  list(): Promise<SubscriptionRow[]> {
    return this.db.query(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE deleted_at IS NULL ORDER BY created_at, id LIMIT 1000`,
    );
  }

  /** Live subscriptions to `type`. */
  subscribedTo(type: WebhookEventType): Promise<SubscriptionRow[]> {
    return this.db.query(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions
        WHERE deleted_at IS NULL AND $1 = ANY(events) ORDER BY created_at, id`,
      [type],
    );
  }

  /** Soft delete: its deliveries stay listed; no new ones are made. False when there was none. */
  async remove(id: string): Promise<boolean> {
    const [, n] = (await this.db.query(
      `UPDATE webhook_subscriptions SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    )) as [unknown, number];
    return n > 0;
  }

  /**
   * The delivery of `eventId` to `subscriptionId`, made once: a second call (the event relayed
   * again) returns the existing row with `created: false`.
   */
  async ensureDelivery(d: {
    subscriptionId: string;
    eventId: string;
    eventType: WebhookEventType;
    breakerId: string | null;
    payload: Record<string, unknown>;
  }): Promise<{ row: DeliveryRow; created: boolean }> {
    const inserted = (await this.db.query(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, breaker_id, payload)
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (subscription_id, event_id) DO NOTHING RETURNING ${DELIVERY_COLUMNS}`,
      [d.subscriptionId, d.eventId, d.eventType, d.breakerId, JSON.stringify(d.payload)],
    )) as DeliveryRow[];
    if (inserted[0]) return { row: inserted[0], created: true };
    const [existing] = (await this.db.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE subscription_id = $1 AND event_id = $2`,
      [d.subscriptionId, d.eventId],
    )) as DeliveryRow[];
    return { row: existing!, created: false };
  }

  /** A delivery with what sending it needs (the subscription's URL, secret and format). */
  async forSending(
    id: string,
  ): Promise<(DeliveryRow & { url: string; secret: string; format: WebhookFormat }) | null> {
    const [row] = (await this.db.query(
      `SELECT d.id, d.seq::float8 AS seq, d.subscription_id AS "subscriptionId", d.event_id AS "eventId", d.event_type AS "eventType",
              d.breaker_id AS "breakerId", d.payload, d.status, d.attempts, d.last_status_code AS "lastStatusCode",
              d.last_error AS "lastError", d.created_at AS "createdAt", d.updated_at AS "updatedAt",
              d.delivered_at AS "deliveredAt", s.url, s.secret, s.format
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = $1`,
      [id],
    )) as (DeliveryRow & { url: string; secret: string; format: WebhookFormat })[];
    return row ?? null;
  }

  /** Records one attempt's outcome; a delivered or dead row is final (a late duplicate attempt changes nothing). */
  async recordAttempt(
    id: string,
    outcome: { status: DeliveryStatus; statusCode: number | null; error: string | null },
  ): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries
          SET status = $2, attempts = attempts + 1, last_status_code = $3, last_error = $4, updated_at = now(),
              delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END
        WHERE id = $1 AND status NOT IN ('delivered', 'dead')`,
      [id, outcome.status, outcome.statusCode, outcome.error?.slice(0, 500) ?? null],
    );
  }

  /** An operator's retry of a dead or retrying delivery: pending again. False when it is not one. */
  async reopen(id: string): Promise<DeliveryRow | null> {
    const [rows] = (await this.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', updated_at = now()
        WHERE id = $1 AND status IN ('dead', 'retrying') RETURNING ${DELIVERY_COLUMNS}`,
      [id],
    )) as [DeliveryRow[], number];
    return rows[0] ?? null;
  }

  async get(id: string): Promise<DeliveryRow | null> {
    const [row] = (await this.db.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [
      id,
    ])) as DeliveryRow[];
    return row ?? null;
  }

  /** Newest first, keyset-paged on seq, optionally one status or one subscription. */
  recent(q: {
    status: DeliveryStatus | null;
    subscriptionId: string | null;
    before: number | null;
    limit: number;
  }): Promise<DeliveryRow[]> {
    const params: unknown[] = [q.limit];
    const where: string[] = [];
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    if (q.subscriptionId) where.push(`subscription_id = $${params.push(q.subscriptionId)}`);
    if (q.before !== null) where.push(`seq < $${params.push(q.before)}`);
    return this.db.query(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY seq DESC LIMIT $1`,
      params,
    );
  }

  /** Deliveries by status (the dashboard's badge, the dead-letter count). */
  async countsByStatus(): Promise<Record<DeliveryStatus, number>> {
    const rows = (await this.db.query(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`,
    )) as { status: DeliveryStatus; n: number }[];
    const out: Record<DeliveryStatus, number> = { pending: 0, retrying: 0, delivered: 0, dead: 0 };
    for (const r of rows) out[r.status] = r.n;
    return out;
  }
}
