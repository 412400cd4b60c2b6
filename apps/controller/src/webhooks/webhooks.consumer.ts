import { Injectable, OnModuleInit } from '@nestjs/common';
import type { ControlEvent } from '@recloser/control';
import { OutboxConsumers } from '../outbox/outbox-consumers.js';
import { WebhookDeliveries } from './webhook-deliveries.service.js';
import { webhookEventOf } from './webhook-events.js';
import { webhookPayload } from './webhook-payload.js';
import { WebhooksRepository } from './webhooks.repository.js';

export const WEBHOOKS_CONSUMER = 'webhooks';

/**
 * The event seam → webhook deliveries. For each event that is an alert, one delivery row per live
 * subscription to it (unique per subscription and event id: a redelivered event makes none), each
 * handed to the queue. A throw (database or Redis away) leaves the event unpublished; the relay
 * brings it again and the rows already made are found, not made twice.
 */
@Injectable()
export class WebhooksConsumer implements OnModuleInit {
  constructor(
    private readonly consumers: OutboxConsumers,
    private readonly repo: WebhooksRepository,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  onModuleInit(): void {
    this.consumers.register(WEBHOOKS_CONSUMER, (event) => this.consume(event));
  }

  async consume(event: ControlEvent): Promise<void> {
    const type = webhookEventOf(event);
    if (!type) return;
    for (const sub of await this.repo.subscribedTo(type)) {
      const { row } = await this.repo.ensureDelivery({
        subscriptionId: sub.id,
        eventId: event.id,
        eventType: type,
        breakerId: event.breakerId === '' ? null : event.breakerId,
        payload: webhookPayload(sub.format, type, event),
      });
      // pending: new, or made by a round whose enqueue failed; the job id makes a second add a no-op
      if (row.status === 'pending') await this.deliveries.enqueue(row.id, row.id);
    }
  }
}
