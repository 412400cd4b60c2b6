// Reconciliation runs again whenever a breaker closes (the event seam), once the events around the
// close have settled (core judgeableBefore: a TTL and a tick), rather than waiting for the next period.
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Reconciliation, type ControlEvent } from '@recloser/control';
import { ControllerConfig } from '../config/controller-config.js';
import { OutboxConsumers } from '../outbox/outbox-consumers.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

/** A transition event into CLOSED. */
export function closedBreaker(event: ControlEvent): boolean {
  return event.type === 'breaker.transition' && event.data.to === 'closed' && event.data.from !== 'closed';
}

@Injectable()
export class LedgerConsumer implements OnModuleInit {
  private readonly logger = new Logger(LedgerConsumer.name);

  constructor(
    private readonly consumers: OutboxConsumers,
    private readonly queues: QueueService,
    private readonly reconciliation: Reconciliation,
    private readonly config: ControllerConfig,
  ) {}

  onModuleInit(): void {
    this.consumers.register('ledger', (event) => this.onEvent(event));
  }

  private async onEvent(event: ControlEvent): Promise<void> {
    if (!closedBreaker(event)) return;
    // settled, plus one heartbeat interval for the reports still on their way
    const settleMs = this.reconciliation.settleMs + this.config.heartbeatIntervalMs;
    // one job per close, whichever replica relays it (the event id is stable across redeliveries)
    const jobId = `reconcile-after-close-${event.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    await this.queues.add(JobName.Reconcile, { breakerId: event.breakerId }, jobId, { delayMs: settleMs });
    this.logger.debug(`reconciliation enqueued in ${settleMs} ms: breaker ${event.breakerId} closed`);
  }
}
