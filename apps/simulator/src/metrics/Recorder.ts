// What one strategy's run did, second by second: every attempt that reached the provider (first
// tries, retries, half-open calls and probes), what came back, and every breaker transition.
import type { GlobalState, Outcome, TransitionFigures } from '@recloser/core';

export type AttemptKind = 'first' | 'retry' | 'probe';

export interface Transition {
  at: number;
  /** instance id, or 'global' for the controller's breaker */
  who: string;
  from: string;
  to: string;
  /** the controller's reason (global transitions of recloser) */
  reason?: string;
  /** the evidence behind it: gate figures, level, limit found, learned level (global transitions of recloser) */
  figures?: TransitionFigures;
}

/** Counts per bucket: a clock second, or (attemptsBySlot) a SLOT_MS slot. */
export class Series {
  readonly values: number[] = [];
  add(bucket: number, n = 1): void {
    while (this.values.length <= bucket) this.values.push(0);
    this.values[bucket]! += n;
  }
  max(bucket: number, n: number): void {
    while (this.values.length <= bucket) this.values.push(0);
    if (n > this.values[bucket]!) this.values[bucket] = n;
  }
  at(bucket: number): number {
    return this.values[bucket] ?? 0;
  }
}

/** The grain of `attemptsBySlot`: fine enough that a 1-s window can start anywhere a step does. */
export const SLOT_MS = 100;

export class Recorder {
  /** attempts per SLOT_MS slot: the wave's peak slides 1-s windows over them; a second's count is the sum of its slots */
  readonly attemptsBySlot = new Series();
  readonly retries = new Series();
  readonly probes = new Series();
  readonly successes = new Series();
  readonly failures = new Series();
  readonly admittedByClass = new Map<string, Series>();
  readonly openInstances = new Series();
  readonly queueDepthByRegion = new Map<string, Series>();
  readonly globalStateBySecond: (GlobalState | null)[] = [];
  readonly globalStepBySecond: (number | null)[] = [];
  /** the ramp's admitted level (fraction of the pool's capacity) at the end of each second */
  readonly globalLevelBySecond: (number | null)[] = [];
  /** requests/s the provider could serve in each second (0 during an outage) */
  readonly servable = new Series();
  readonly transitions: Transition[] = [];
  readonly probeLatencies: number[] = [];
  /** latencies of the calls (not probes) that succeeded after the outage ended */
  readonly acceptedLatencies: number[] = [];
  /** allowance-or-budget overruns the strategy itself noticed (must stay 0 for recloser) */
  readonly budgetViolations: string[] = [];
  firstSuccessAfter: number | null = null;
  shedWork = 0;
  failedWork = 0;
  private watchFrom = Number.POSITIVE_INFINITY;

  /** Attempts in clock second `second` (the sum of its slots). */
  attemptsIn(second: number): number {
    const perSecond = 1000 / SLOT_MS;
    let n = 0;
    for (let k = second * perSecond; k < (second + 1) * perSecond; k++) n += this.attemptsBySlot.at(k);
    return n;
  }

  /** The first success at or after `t` is remembered (the recovery wave starts there). */
  watchFirstSuccessFrom(t: number): void {
    this.watchFrom = t;
  }

  attempt(at: number, kind: AttemptKind, trafficClass: string): void {
    const s = Math.floor(at / 1000);
    this.attemptsBySlot.add(Math.floor(at / SLOT_MS));
    if (kind === 'retry') this.retries.add(s);
    if (kind === 'probe') this.probes.add(s);
    let series = this.admittedByClass.get(trafficClass);
    if (!series) {
      series = new Series();
      this.admittedByClass.set(trafficClass, series);
    }
    series.add(s);
  }

  result(at: number, kind: AttemptKind, outcome: Outcome, latencyMs: number): void {
    const s = Math.floor(at / 1000);
    if (outcome === 'success') {
      this.successes.add(s);
      if (at >= this.watchFrom) {
        this.firstSuccessAfter ??= at;
        if (kind !== 'probe') this.acceptedLatencies.push(latencyMs);
      }
    } else this.failures.add(s);
    if (kind === 'probe') this.probeLatencies.push(latencyMs);
  }

  servableSecond(at: number, ratePerSec: number): void {
    this.servable.max(Math.floor(at / 1000), ratePerSec);
  }

  transition(t: Transition): void {
    this.transitions.push(t);
  }

  sampleSecond(
    at: number,
    openInstances: number,
    globalState: GlobalState | null,
    globalStep: number | null,
    globalLevel: number | null,
    queues: Record<string, number>,
  ): void {
    const s = Math.floor(at / 1000);
    while (this.globalLevelBySecond.length <= s) this.globalLevelBySecond.push(null);
    this.globalLevelBySecond[s] = globalLevel;
    this.openInstances.max(s, openInstances);
    while (this.globalStateBySecond.length <= s) this.globalStateBySecond.push(null);
    this.globalStateBySecond[s] = globalState;
    while (this.globalStepBySecond.length <= s) this.globalStepBySecond.push(null);
    this.globalStepBySecond[s] = globalStep;
    for (const [region, depth] of Object.entries(queues)) {
      let series = this.queueDepthByRegion.get(region);
      if (!series) {
        series = new Series();
        this.queueDepthByRegion.set(region, series);
      }
      series.max(s, depth);
    }
  }
}
