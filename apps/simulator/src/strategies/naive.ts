// The baselines: independent per-instance breakers as common libraries ship them (a count-based
// window that opens at a 50 % failure rate, a fixed 30 s open wait, then 10 half-open calls).
// `jittered` is the same breaker with a randomised open wait. No coordination between instances.
import { isSystemic, type Outcome, type Rng } from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { Recorder } from '../metrics/Recorder.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

export interface IndependentBreakerOptions {
  /** outcomes kept in the closed-state window */
  windowSize: number;
  /** outcomes needed before the window is judged */
  minimumCalls: number;
  failureRateThreshold: number;
  openWaitMs: number;
  /** 0 = fixed wait; 0.5 = drawn uniformly from [wait·0.5, wait·1.5] */
  waitJitter: number;
  halfOpenCalls: number;
}

export const NAIVE_BREAKER: IndependentBreakerOptions = {
  windowSize: 10,
  minimumCalls: 3,
  failureRateThreshold: 0.5,
  openWaitMs: 30_000,
  waitJitter: 0,
  halfOpenCalls: 10,
};

export const JITTERED_BREAKER: IndependentBreakerOptions = { ...NAIVE_BREAKER, waitJitter: 0.5 };

type State = 'closed' | 'open' | 'half_open';

/** what the common library counts as a failure (its window's and its half-open round's) */
export const isFailure = (o: Outcome): boolean => isSystemic(o) || o === 'rate_limited';

export class IndependentBreaker implements CallGate {
  private state: State = 'closed';
  private readonly window: boolean[] = [];
  private openUntil = 0;
  private halfOpenIssued = 0;
  private halfOpenDone = 0;
  private halfOpenFailed = 0;
  /** bumps on every open, so results of an older half-open round are not counted in a new one */
  private round = 0;
  private readonly roundOfCall: number[] = [];

  constructor(
    private readonly id: string,
    private readonly sim: Simulation,
    private readonly rng: Rng,
    private readonly recorder: Recorder,
    private readonly options: IndependentBreakerOptions,
  ) {}

  isOpen(): boolean {
    return this.state !== 'closed';
  }

  acquire(): GateKind | null {
    if (this.state === 'open' && this.sim.now() >= this.openUntil) this.moveTo('half_open');
    if (this.state === 'closed') return 'call';
    if (this.state === 'half_open' && this.halfOpenIssued < this.options.halfOpenCalls) {
      this.halfOpenIssued += 1;
      this.roundOfCall.push(this.round);
      return 'probe';
    }
    return null;
  }

  wakeAt(): number | null {
    return this.state === 'open' ? this.openUntil : null;
  }

  complete(kind: GateKind, outcome: Outcome, _latencyMs: number, _retryAfterMs: number | undefined): void {
    if (outcome === 'cancelled') return;
    const failed = isFailure(outcome);
    if (kind === 'probe') {
      const round = this.roundOfCall.shift();
      if (round !== this.round || this.state !== 'half_open') return;
      this.halfOpenDone += 1;
      if (failed) this.halfOpenFailed += 1;
      const limit = this.options.halfOpenCalls;
      if (this.halfOpenFailed >= limit * this.options.failureRateThreshold) this.open();
      else if (this.halfOpenDone >= limit) this.moveTo('closed');
      return;
    }
    if (this.state !== 'closed') return;
    this.window.push(failed);
    if (this.window.length > this.options.windowSize) this.window.shift();
    if (this.window.length < this.options.minimumCalls) return;
    let failures = 0;
    for (const f of this.window) if (f) failures += 1;
    if (failures / this.window.length >= this.options.failureRateThreshold) this.open();
  }

  private open(): void {
    const { openWaitMs, waitJitter } = this.options;
    const wait = openWaitMs * (1 - waitJitter + 2 * waitJitter * this.rng.next());
    this.openUntil = this.sim.now() + wait;
    this.round += 1;
    this.moveTo('open');
  }

  private moveTo(next: State): void {
    if (next === this.state) return;
    this.recorder.transition({ at: this.sim.now(), who: this.id, from: this.state, to: next });
    this.state = next;
    this.window.length = 0;
    this.halfOpenIssued = 0;
    this.halfOpenDone = 0;
    this.halfOpenFailed = 0;
  }
}

function independentStrategy(name: string, options: IndependentBreakerOptions): Strategy {
  return {
    name,
    build(ctx: StrategyContext): Fleet {
      const gates = ctx.instances.map(
        (inst) => new IndependentBreaker(inst.id, ctx.sim, ctx.sim.rng, ctx.recorder, options),
      );
      return {
        gate: (i) => gates[i]!,
        attach: () => undefined,
        start: () => undefined,
        globalState: () => null,
      };
    },
  };
}

export const naive = independentStrategy('naive', NAIVE_BREAKER);
export const jittered = independentStrategy('jittered', JITTERED_BREAKER);
