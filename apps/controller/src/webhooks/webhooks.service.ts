import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { decodeCursor, encodeCursor, PAGE_DEFAULT } from '../common/paging.js';
import { ControllerConfig } from '../config/controller-config.js';
import type { CreateWebhookDto, DeliveriesQuery, DeliveryDto, WebhookDto } from './dto/webhook.dto.js';
import { resolveTarget, WebhookTargetError } from './ssrf-guard.js';
import { WebhookDeliveries } from './webhook-deliveries.service.js';
import { WEBHOOK_EVENTS } from './webhook-events.js';
import {
  type DeliveryRow,
  type DeliveryStatus,
  type SubscriptionRow,
  WebhooksRepository,
} from './webhooks.repository.js';

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

export function toWebhookDto(s: SubscriptionRow): WebhookDto {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    format: s.format,
    description: s.description,
    createdAt: iso(s.createdAt)!,
  };
}

export function toDeliveryDto(d: DeliveryRow): DeliveryDto {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    breakerId: d.breakerId,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    createdAt: iso(d.createdAt)!,
    updatedAt: iso(d.updatedAt)!,
    deliveredAt: iso(d.deliveredAt),
    payload: d.payload,
  };
}

/** Subscriptions (SSRF-checked when made), recent deliveries, an operator's retry of a dead one. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly config: ControllerConfig,
    private readonly repo: WebhooksRepository,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  async subscribe(dto: CreateWebhookDto): Promise<WebhookDto> {
    try {
      await resolveTarget(dto.url, this.config.webhookAllowHosts);
    } catch (err) {
      if (err instanceof WebhookTargetError) throw new BadRequestException(err.message);
      throw err;
    }
    const row = await this.repo.create({
      url: dto.url,
      secret: dto.secret,
      events: dto.events,
      format: dto.format ?? 'json',
      description: dto.description ?? null,
    });
    return toWebhookDto(row);
  }

  async list(): Promise<{ webhooks: WebhookDto[]; events: string[] }> {
    return { webhooks: (await this.repo.list()).map(toWebhookDto), events: [...WEBHOOK_EVENTS] };
  }

  async remove(id: string): Promise<void> {
    if (!(await this.repo.remove(id))) throw new NotFoundException('webhook not found');
  }

  async recent(q: DeliveriesQuery): Promise<{
    deliveries: DeliveryDto[];
    next: string | null;
    counts: Record<DeliveryStatus, number>;
  }> {
    const limit = q.limit ?? PAGE_DEFAULT;
    const before = decodeCursor<readonly [number]>(q.cursor, ['number']);
    const rows = await this.repo.recent({
      status: q.status ?? null,
      subscriptionId: q.subscriptionId ?? null,
      before: before?.[0] ?? null,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? encodeCursor([page[page.length - 1]!.seq]) : null;
    return { deliveries: page.map(toDeliveryDto), next, counts: await this.repo.countsByStatus() };
  }

  /** A dead (or still retrying) delivery gets a fresh run of attempts now. */
  async retry(id: string): Promise<DeliveryDto> {
    const existing = await this.repo.get(id);
    if (!existing) throw new NotFoundException('delivery not found');
    const row = await this.repo.reopen(id);
    if (!row)
      throw new ConflictException(`delivery is ${existing.status}; only a dead or retrying one is retried`);
    await this.deliveries.enqueue(row.id, `${row.id}-retry-${Date.now()}`);
    return toDeliveryDto(row);
  }
}
