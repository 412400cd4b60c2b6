// The SDK's own metrics and spans, through @opentelemetry/api: a no-op unless the host application
// registers a MeterProvider / TracerProvider (before it creates its Recloser). Nothing here runs on
// the hot path: attempts and refusals are read off the breakers once per tick, states when the host's
// reader collects; spans cover heartbeat rounds (off the call path) and probe outcomes.
import {
  type Attributes,
  type Counter,
  metrics,
  type ObservableGauge,
  type ObservableResult,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { BreakerVerdict } from '@recloser/core';
import type { Breaker, BreakerState } from '../breaker/Breaker.js';

export const INSTRUMENTATION_SCOPE = '@recloser/client';
const STATES: readonly BreakerState[] = [
  'closed',
  'local_open',
  'self_probe',
  'paused',
  'admitted',
  'fallback',
];

/** What the Recloser shows its telemetry. */
export interface TelemetryHost {
  readonly instanceId: string;
  readonly group: string;
  isReachable(): boolean;
  breakersNow(): Iterable<Breaker>;
}

export class SdkTelemetry {
  private readonly attempts: Counter;
  private readonly rejections: Counter;
  private readonly fallbacks: Counter;
  private readonly probes: Counter;
  private readonly state: ObservableGauge;
  private readonly fallback: ObservableGauge;
  private readonly tracer: Tracer;

  constructor(private readonly host: TelemetryHost) {
    const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
    this.tracer = trace.getTracer(INSTRUMENTATION_SCOPE);
    this.attempts = meter.createCounter('recloser.client.attempts', {
      description: 'calls attempted through a breaker, by dependency and classified outcome',
    });
    this.rejections = meter.createCounter('recloser.client.rejections', {
      description: 'calls refused without an attempt, by dependency and reason',
    });
    this.fallbacks = meter.createCounter('recloser.client.fallbacks', {
      description: 'times the controller became unreachable (the breakers fell back)',
    });
    this.probes = meter.createCounter('recloser.client.probes', {
      description: 'probe calls by kind (controller token or fallback owner) and outcome',
    });
    this.state = meter.createObservableGauge('recloser.client.state', {
      description: 'local state of each breaker: 1 for the current state, 0 for the others',
    });
    this.fallback = meter.createObservableGauge('recloser.client.fallback', {
      description: '1 while the controller is unreachable and the SDK follows its fallback policy',
    });
    this.state.addCallback((r) => this.observeStates(r));
    this.fallback.addCallback((r) => r.observe(host.isReachable() ? 0 : 1, { group: host.group }));
  }

  /** A breaker the Recloser made: its probe outcomes are counted as they happen. */
  watch(breaker: Breaker): void {
    breaker.onProbe((e) => {
      this.probes.add(1, {
        dependency: e.dependency,
        kind: e.kind,
        outcome: e.outcome,
        accepted: e.accepted,
      });
      const span = this.tracer.startSpan('recloser.probe', {
        attributes: {
          'recloser.dependency': e.dependency,
          'recloser.probe.kind': e.kind,
          'recloser.probe.outcome': e.outcome,
          'recloser.probe.accepted': e.accepted,
          ...(e.fencing === null ? {} : { 'recloser.probe.fencing': e.fencing }),
        },
      });
      if (e.outcome !== 'success') span.setStatus({ code: SpanStatusCode.ERROR, message: e.outcome });
      span.end();
    });
  }

  /** After a tick closed: the window's attempts by outcome and the refusals since the last tick. */
  tickClosed(verdicts: readonly BreakerVerdict[], breakers: Iterable<Breaker>): void {
    for (const v of verdicts) {
      const { attempts, successes, byClass } = v.evidence;
      let classified = successes;
      if (successes > 0) this.attempts.add(successes, { dependency: v.dependency, outcome: 'success' });
      for (const [outcome, n] of Object.entries(byClass)) {
        if (n <= 0) continue;
        classified += n;
        this.attempts.add(n, { dependency: v.dependency, outcome });
      }
      if (attempts > classified)
        this.attempts.add(attempts - classified, { dependency: v.dependency, outcome: 'other' });
    }
    for (const b of breakers)
      b.drainRefusals((reason, n) => this.rejections.add(n, { dependency: b.dependency, reason }));
  }

  /** The controller stopped answering. */
  fellBack(): void {
    this.fallbacks.add(1, { group: this.host.group });
  }

  /** Runs one heartbeat round in a span; `reachable` of its result sets the span's status. */
  async round<T extends { reachable: boolean; error?: unknown }>(run: () => Promise<T>): Promise<T> {
    const attributes: Attributes = {
      'recloser.group': this.host.group,
      'recloser.instance': this.host.instanceId,
    };
    return this.tracer.startActiveSpan('recloser.heartbeat', { attributes }, async (span) => {
      try {
        const result = await run();
        if (!result.reachable) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: result.error instanceof Error ? result.error.message : 'controller unreachable',
          });
        }
        return result;
      } finally {
        span.end();
      }
    });
  }

  private observeStates(r: ObservableResult): void {
    for (const b of this.host.breakersNow()) {
      const now = b.state;
      for (const s of STATES) r.observe(s === now ? 1 : 0, { dependency: b.dependency, state: s });
    }
  }
}
