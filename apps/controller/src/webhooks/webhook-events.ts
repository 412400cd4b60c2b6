import type { ControlEvent, TransitionEventData } from '@recloser/control';

/**
 * What a webhook may subscribe to. Each is one state change of the event seam, never a heartbeat:
 * an incident alerts once per change (`region.fallback`: once per spell and region, when control returned).
 */
export const WEBHOOK_EVENTS = [
  'breaker.opened',
  'breaker.probing',
  'breaker.ramp_step',
  'breaker.ramp_held',
  'breaker.ramp_stepped_back',
  'breaker.recovered',
  'breaker.forced',
  'instance.isolated',
  'instance.recovered',
  'quorum.near',
  'region.fallback',
  'region.shift',
  'region.shift_throttled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/**
 * The webhook event a control event announces, or null (probe grants and the like are not alerts).
 * A transition by an operator is `breaker.forced` whatever it did; otherwise the target state (and,
 * within RAMPING, the direction of the step) names it.
 */
export function webhookEventOf(event: ControlEvent): WebhookEventType | null {
  switch (event.type) {
    case 'instance.isolated':
    case 'instance.recovered':
    case 'quorum.near':
    case 'region.fallback':
    case 'region.shift':
    case 'region.shift_throttled':
      return event.type;
    case 'breaker.transition':
      return transitionEventOf(event.data as unknown as TransitionEventData);
    default:
      return null;
  }
}

function transitionEventOf(t: TransitionEventData): WebhookEventType | null {
  if (t.actor === 'operator') return 'breaker.forced';
  switch (t.to) {
    case 'open':
      return 'breaker.opened';
    case 'probing':
      return 'breaker.probing';
    case 'closed':
      return 'breaker.recovered';
    case 'ramping': {
      if (t.from !== 'ramping' || t.fromStep === null || t.step === null) return 'breaker.ramp_step';
      if (t.step > t.fromStep) return 'breaker.ramp_step';
      if (t.step < t.fromStep) return 'breaker.ramp_stepped_back';
      return 'breaker.ramp_held';
    }
    default:
      return null;
  }
}

/** A one-line human summary (Slack's `text`, the dashboard's delivery list). */
export function describeEvent(type: WebhookEventType, event: ControlEvent): string {
  const d = event.data as Record<string, unknown>;
  const where = `${String(d.group)}/${String(d.dependency)}${d.region ? ` (${String(d.region)})` : ''}`;
  switch (type) {
    case 'instance.isolated':
      return `Recloser: instance ${String(d.instanceId)} of ${where} is locally open while its group is closed (isolated)`;
    case 'instance.recovered':
      return `Recloser: instance ${String(d.instanceId)} of ${where} is no longer isolated`;
    case 'quorum.near': {
      const q = d.quorum as { open?: number; threshold?: number } | null;
      return `Recloser: ${where} is near its quorum (${q?.open ?? '?'} open of threshold ${q?.threshold ?? '?'})`;
    }
    case 'region.fallback':
      return `Recloser: region ${String(d.region)} of ${String(d.group)}/${String(d.dependency)} ran without the controller for ${Math.round(Number(d.durationMs) / 1000)} s (fallback: only probe owners probed)`;
    case 'region.shift': {
      const receivers = (d.receivers as { region: string; ratePerSec: number }[] | undefined) ?? [];
      const to = receivers.map((r) => `${r.region} ≤ ${r.ratePerSec}/s`).join(', ') || 'no receiver';
      return `Recloser: the shift of region ${String(d.source)} of ${String(d.group)}/${String(d.dependency)} ${String(d.phase)} (${String(d.mode)}: ${to}): ${String(d.reason)}`;
    }
    case 'region.shift_throttled':
      return `Recloser: region ${String(d.region)} of ${String(d.group)}/${String(d.dependency)} receives moved traffic at ${String(d.receivedPerSec)}/s, faster than the shift plans allow (${String(d.allowedPerSec)}/s): shift_throttled`;
    default: {
      const t = d as unknown as TransitionEventData;
      const step = t.step === null ? '' : ` step ${t.step}`;
      return `Recloser: ${where} ${t.from} → ${t.to}${step} [${type}]: ${t.reason}`;
    }
  }
}
