import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { WebhookDeliveries } from './webhook-deliveries.service.js';
import { WebhooksConsumer } from './webhooks.consumer.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Signed webhook alerts: a consumer of the event seam, delivered through the webhooks queue. */
@Module({
  imports: [OutboxModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhookDeliveries, WebhooksConsumer, WebhooksService],
  exports: [WebhooksRepository, WebhooksService],
})
export class WebhooksModule {}
