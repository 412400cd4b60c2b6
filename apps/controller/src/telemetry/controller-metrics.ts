import { metrics } from '@opentelemetry/api';

// Instruments are created lazily from the global meter: a no-op until startTelemetry() ran, so
// in-process tests and scripts pay nothing.
const meter = () => metrics.getMeter('recloser-controller');

let heartbeats: ReturnType<ReturnType<typeof meter>['createCounter']> | null = null;
let transitions: ReturnType<ReturnType<typeof meter>['createCounter']> | null = null;

/** recloser_heartbeats_total: heartbeats accepted. */
export function countHeartbeat(): void {
  (heartbeats ??= meter().createCounter('recloser_heartbeats', { description: 'heartbeats accepted' })).add(
    1,
  );
}

/** recloser_transitions_total{from,to,actor}: global breaker state changes written to the log. */
export function countTransition(from: string, to: string, actor: string): void {
  (transitions ??= meter().createCounter('recloser_transitions', {
    description: 'global breaker transitions written to the log',
  })).add(1, { from, to, actor });
}

let controlEvents: ReturnType<ReturnType<typeof meter>['createCounter']> | null = null;

/** recloser_control_events_total{type}: events of the event seam relayed from the outbox (once per id per process). */
export function countControlEvent(type: string): void {
  (controlEvents ??= meter().createCounter('recloser_control_events', {
    description: 'control events relayed from the outbox, by type',
  })).add(1, { type });
}

let probeTokens: ReturnType<ReturnType<typeof meter>['createCounter']> | null = null;

/**
 * recloser_probe_tokens_total{outcome,reason}: granted (plans and POST /v1/probes/lease, from the event
 * seam), denied (POST /v1/probes/lease refused; reason = the refusal's kind), expired (swept unused).
 */
export function countProbeTokens(outcome: 'granted' | 'denied' | 'expired', n = 1, reason = ''): void {
  (probeTokens ??= meter().createCounter('recloser_probe_tokens', {
    description: 'probe tokens granted, denied or expired unused',
  })).add(n, reason ? { outcome, reason } : { outcome });
}
