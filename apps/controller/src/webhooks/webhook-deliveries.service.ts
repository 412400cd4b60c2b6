import { Injectable, Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { ControllerConfig } from '../config/controller-config.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName, QueueName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { resolveTarget, WebhookTargetError } from './ssrf-guard.js';
import { countWebhookAttempt } from './webhook-metrics.js';
import { sendOnce } from './webhook-sender.js';
import {
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
} from './webhook-signature.js';
import { WebhooksRepository } from './webhooks.repository.js';

export interface DeliverWebhookJob {
  deliveryId: string;
}

/**
 * Delivery through BullMQ: at least once, `RECLOSER_WEBHOOK_ATTEMPTS` attempts with exponential
 * backoff and jitter from `RECLOSER_WEBHOOK_BACKOFF_MS`, each attempt bounded by
 * `RECLOSER_WEBHOOK_TIMEOUT_MS`, then dead-lettered (status `dead`, retried by an operator). Every
 * attempt is signed afresh (its own timestamp) over the exact bytes sent.
 */
@Injectable()
@JobHandler(JobName.DeliverWebhook)
export class WebhookDeliveries implements JobHandlerInstance {
  private readonly logger = new Logger(WebhookDeliveries.name);

  constructor(
    private readonly config: ControllerConfig,
    private readonly queues: QueueService,
    private readonly repo: WebhooksRepository,
  ) {}

  /** Adds the delivery's job; `jobId` deduplicates (the delivery id, or a retry's own id). */
  async enqueue(deliveryId: string, jobId: string): Promise<void> {
    const data: DeliverWebhookJob = { deliveryId };
    await this.queues.queue(QueueName.Webhooks).add(JobName.DeliverWebhook, data, {
      jobId,
      attempts: this.config.webhookAttempts,
      backoff: { type: 'exponential', delay: this.config.webhookBackoffMs, jitter: 0.5 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    });
  }

  async handle(job: Job<DeliverWebhookJob>): Promise<string> {
    const d = await this.repo.forSending(job.data.deliveryId);
    if (!d) return 'gone';
    if (d.status === 'delivered' || d.status === 'dead') return d.status;
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    let target;
    try {
      // checked again at each attempt: a DNS answer may have changed since the subscription
      target = await resolveTarget(d.url, this.config.webhookAllowHosts);
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof WebhookTargetError && /private|valid URL|http or https|credentials/.test(message)) {
        await this.repo.recordAttempt(d.id, { status: 'dead', statusCode: null, error: message });
        countWebhookAttempt('refused', d.eventType);
        throw new UnrecoverableError(message);
      }
      return this.failed(d.id, d.eventType, last, null, message);
    }
    const body = JSON.stringify(d.payload);
    const headers = {
      'user-agent': 'recloser-webhooks/1',
      [SIGNATURE_HEADER]: signatureHeader(d.secret, Math.floor(Date.now() / 1000), body),
      [EVENT_ID_HEADER]: d.eventId,
      [EVENT_TYPE_HEADER]: d.eventType,
      'x-recloser-delivery': d.id,
    };
    const result = await sendOnce(target, headers, body, this.config.webhookTimeoutMs);
    if (result.ok) {
      await this.repo.recordAttempt(d.id, {
        status: 'delivered',
        statusCode: result.statusCode,
        error: null,
      });
      countWebhookAttempt('delivered', d.eventType);
      return 'delivered';
    }
    return this.failed(d.id, d.eventType, last, result.statusCode, result.error ?? 'failed');
  }

  private async failed(
    id: string,
    eventType: string,
    last: boolean,
    statusCode: number | null,
    error: string,
  ): Promise<never> {
    await this.repo.recordAttempt(id, { status: last ? 'dead' : 'retrying', statusCode, error });
    countWebhookAttempt(last ? 'dead' : 'failed', eventType);
    if (last) this.logger.warn(`webhook delivery ${id} is dead after its last attempt: ${error}`);
    // BullMQ retries it after the backoff (or, on the last attempt, keeps it failed)
    throw new Error(error);
  }
}
