import { Injectable } from '@nestjs/common';
import type { ControlEvent, TransitionEventData } from '@recloser/control';
import { dedupe, OutboxConsumers } from '../outbox/outbox-consumers.js';
import { countControlEvent, countProbeTokens, countTransition } from '../telemetry/controller-metrics.js';

export const METRICS_CONSUMER = 'metrics';

/**
 * Counts the event seam: every event by type, and each breaker.transition as
 * recloser_transitions_total{from,to,actor} (counted here, once relayed, instead of by the writer
 * after its commit). Replicas count the events they relay; a fleet-wide sum counts each once.
 */
@Injectable()
export class ControlEventsMetrics {
  constructor(consumers: OutboxConsumers) {
    consumers.register(
      METRICS_CONSUMER,
      dedupe((event) => this.count(event)),
    );
  }

  private count(event: ControlEvent): void {
    countControlEvent(event.type);
    if (event.type === 'breaker.transition') {
      const t = event.data as unknown as TransitionEventData;
      countTransition(t.from, t.to, t.actor);
    }
    if (event.type === 'probe.granted') countProbeTokens('granted');
  }
}
