import { Module } from '@nestjs/common';
import { OutboxConsumers } from './outbox-consumers.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxService } from './outbox.service.js';

/**
 * The event seam in the controller: a transactional outbox (table outbox_events), its relay, and
 * the registry of consumers. Writers inject OutboxService; consumers inject OutboxConsumers.
 */
@Module({
  providers: [OutboxService, OutboxRelay, OutboxConsumers],
  exports: [OutboxService, OutboxConsumers],
})
export class OutboxModule {}
