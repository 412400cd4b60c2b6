import { metrics } from '@opentelemetry/api';

const meter = () => metrics.getMeter('recloser-controller');
let deliveries: ReturnType<ReturnType<typeof meter>['createCounter']> | null = null;

export type DeliveryOutcome = 'delivered' | 'failed' | 'dead' | 'refused';

/** recloser_webhook_deliveries_total{outcome,event}: attempts by outcome (failed = will be retried). */
export function countWebhookAttempt(outcome: DeliveryOutcome, event: string): void {
  (deliveries ??= meter().createCounter('recloser_webhook_deliveries', {
    description: 'webhook delivery attempts by outcome (failed: retried later; dead: attempts exhausted)',
  })).add(1, { outcome, event });
}
