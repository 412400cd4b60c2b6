import type { ControlEvent } from '@recloser/control';
import { describeEvent, type WebhookEventType } from './webhook-events.js';
import type { WebhookFormat } from './webhooks.repository.js';

/**
 * The body a subscription receives. `json`: the event with a stable `id` receivers deduplicate on;
 * `slack`: a Slack-compatible incoming-webhook message (`text`), the id then in the headers only.
 */
export function webhookPayload(
  format: WebhookFormat,
  type: WebhookEventType,
  event: ControlEvent,
): Record<string, unknown> {
  if (format === 'slack') return { text: describeEvent(type, event) };
  const d = event.data as Record<string, unknown>;
  return {
    id: event.id,
    type,
    occurredAt: new Date(event.at).toISOString(),
    breakerId: event.breakerId === '' ? null : event.breakerId,
    group: d.group ?? null,
    dependency: d.dependency ?? null,
    region: d.region ?? null,
    summary: describeEvent(type, event),
    data: d,
  };
}
