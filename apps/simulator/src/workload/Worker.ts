// One instance's workload: work units arrive at a steady demand, wait in a bounded backlog while
// the breaker is shut, and go out through the strategy's gate. A failed call is retried (a fixed
// number of times, with backoff), so retry storms show up in the attempt counts.
import {
  backoffDelayMs,
  classifyHttpStatus,
  isSystemic,
  type BackoffOptions,
  type Outcome,
} from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { Recorder } from '../metrics/Recorder.js';
import type { Provider, ProviderAnswer } from '../provider/Provider.js';
import type { CallGate, GateKind } from './CallGate.js';

/** How an instance classifies the provider's answer (status 0: the call never left the host). */
export function answerOutcome(answer: ProviderAnswer, slowThresholdMs: number): Outcome {
  if (answer.status === 0) return 'network';
  return classifyHttpStatus(answer.status, { latencyMs: answer.latencyMs, slowThresholdMs });
}

export interface WorkloadOptions {
  /** work units per second this instance wants to send */
  demandPerSec: number;
  trafficClass: string;
  /** calls in flight at once per instance */
  maxInflight: number;
  /** units kept while the breaker is shut; older demand beyond this is shed */
  maxBacklog: number;
  /** retries after the first try of a unit */
  retries: number;
  retryBackoff: BackoffOptions;
  /** a success slower than this is classified `slow` */
  slowThresholdMs: number;
}

export const DEFAULT_WORKLOAD: WorkloadOptions = {
  demandPerSec: 1,
  trafficClass: 'standard',
  maxInflight: 2,
  maxBacklog: 120,
  retries: 2,
  retryBackoff: { baseMs: 200, maxMs: 2000, multiplier: 2, jitter: 0.5 },
  slowThresholdMs: 10_000,
};

export class Worker {
  private fresh = 0;
  private readonly readyRetries: number[] = [];
  private inflight = 0;
  private wakeScheduledAt = Number.POSITIVE_INFINITY;
  /** a broken host: every call fails inside the instance (S3) */
  broken = false;

  constructor(
    readonly id: string,
    readonly region: string,
    private readonly sim: Simulation,
    private readonly provider: Provider,
    private readonly gate: CallGate,
    private readonly recorder: Recorder,
    private readonly options: WorkloadOptions,
  ) {}

  /** Starts the steady demand at a random phase, until `untilMs`. */
  start(untilMs: number): void {
    const period = 1000 / this.options.demandPerSec;
    this.sim.every(period, this.sim.now() + this.sim.rng.next() * period, untilMs, () => this.arrive());
  }

  backlog(): number {
    return this.fresh + this.readyRetries.length;
  }

  /** Sends what the gate admits; a strategy calls this when its gate may have opened. */
  pump(): void {
    while (this.inflight < this.options.maxInflight && (this.readyRetries.length > 0 || this.fresh > 0)) {
      const kind = this.gate.acquire();
      if (kind === null) {
        this.scheduleWake();
        return;
      }
      let attemptNo = 0;
      if (this.readyRetries.length > 0) attemptNo = this.readyRetries.pop()!;
      else this.fresh -= 1;
      this.send(kind, attemptNo);
    }
  }

  private arrive(): void {
    if (this.backlog() >= this.options.maxBacklog) this.recorder.shedWork += 1;
    else this.fresh += 1;
    this.pump();
  }

  private send(kind: GateKind, attemptNo: number): void {
    const sentAt = this.sim.now();
    this.inflight += 1;
    this.recorder.attempt(
      sentAt,
      kind === 'probe' ? 'probe' : attemptNo > 0 ? 'retry' : 'first',
      kind === 'probe' ? 'probe' : this.options.trafficClass,
    );
    const target = this.gate.route ? this.gate.route() : this.region;
    const onAnswer = (answer: ProviderAnswer): void => this.onAnswer(kind, attemptNo, answer, target);
    if (this.broken) this.sim.after(1, () => onAnswer({ status: 0, latencyMs: 1 }));
    else this.provider.call(target, onAnswer);
  }

  private onAnswer(kind: GateKind, attemptNo: number, answer: ProviderAnswer, target: string): void {
    this.inflight -= 1;
    // status 0 = the call never left the host (connection refused)
    const outcome = answerOutcome(answer, this.options.slowThresholdMs);
    this.recorder.result(
      this.sim.now(),
      kind === 'probe' ? 'probe' : attemptNo > 0 ? 'retry' : 'first',
      outcome,
      answer.latencyMs,
    );
    this.gate.complete(kind, outcome, answer.latencyMs, answer.retryAfterMs, attemptNo, target);
    if (outcome !== 'success' && (isSystemic(outcome) || outcome === 'rate_limited')) {
      const own =
        attemptNo < this.options.retries && this.gate.retry
          ? this.gate.retry(attemptNo, outcome, answer.retryAfterMs)
          : undefined;
      if (attemptNo < this.options.retries && own !== null) {
        const backoff = own?.delayMs ?? backoffDelayMs(attemptNo, this.options.retryBackoff, this.sim.rng);
        this.sim.after(Math.max(backoff, answer.retryAfterMs ?? 0), () => {
          this.readyRetries.push(attemptNo + 1);
          this.pump();
        });
      } else this.recorder.failedWork += 1;
    } else if (outcome !== 'success') this.recorder.failedWork += 1;
    this.pump();
  }

  private scheduleWake(): void {
    const at = this.gate.wakeAt();
    if (at === null || at >= this.wakeScheduledAt) return;
    this.wakeScheduledAt = at;
    this.sim.at(at, () => {
      if (this.wakeScheduledAt === at) this.wakeScheduledAt = Number.POSITIVE_INFINITY;
      this.pump();
    });
  }
}
