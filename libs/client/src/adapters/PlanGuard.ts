// What the opossum and cockatiel adapters share: a breaker the team already runs keeps deciding
// locally while the group is CLOSED, and every call also passes the Recloser breaker, which applies
// the group's plan (pause while OPEN, the probe token, the ramp's allowance) with the SDK's own
// admission code. The foreign breaker is held open while the group is OPEN or PROBING, let through
// for the probe this instance holds, and reset when the group leaves OPEN (the group decided).
import type { GlobalState, Outcome, TrafficClass } from '@recloser/core';
import type { Breaker, BreakerOptions } from '../breaker/Breaker.js';
import { classifyError, classifyResponse, isResponseLike } from '../classify/Classify.js';
import type { IDisposable } from '../common/Event.js';
import type { Recloser } from '../Recloser.js';

/** How an adapter holds, lets through and resets the breaker it wraps. */
export interface ForeignBreaker {
  /** the foreign breaker's own state, reported as this instance's verdict */
  state(): 'closed' | 'open' | 'half_open';
  /** keep it open (its own state and listeners say so) while the group is OPEN or PROBING */
  hold(): void;
  /** stop holding it, closed: for the probe call, and when the group no longer blocks */
  release(): void;
}

export interface GuardOptions {
  /** options of the Recloser breaker made for the dependency (its `external` is the adapter's) */
  breaker?: Omit<BreakerOptions, 'external'>;
  /** traffic class of the wrapped calls; default the breaker's default class */
  trafficClass?: TrafficClass;
  /** a successful call slower than this counts as `slow` */
  slowThresholdMs?: number;
}

/** What a guarded call did, for recording: `ran` false when the foreign breaker refused it itself. */
export interface CallRecord {
  ran: boolean;
  settled: boolean;
  failed: boolean;
  value: unknown;
  error: unknown;
  latencyMs: number;
}

const blocks = (state: GlobalState | null): boolean => state === 'open' || state === 'probing';

export class PlanGuard implements IDisposable {
  readonly breaker: Breaker;
  private blocked = false;
  private probing = 0;
  private readonly planSub: IDisposable;

  constructor(
    recloser: Recloser,
    dependency: string,
    private readonly foreign: ForeignBreaker,
    private readonly options: GuardOptions = {},
  ) {
    if (recloser.dependencies.includes(dependency))
      throw new Error(
        `recloser already has a breaker for "${dependency}": guard the foreign breaker before anything else uses that dependency`,
      );
    this.breaker = recloser.breaker(dependency, {
      ...options.breaker,
      external: { state: () => foreign.state() },
    });
    this.planSub = this.breaker.onPlan((plan) => this.follow(plan.global.state));
  }

  /** Whether the group's plan holds the foreign breaker open now. */
  get holding(): boolean {
    return this.blocked;
  }

  /**
   * One call under the plan: refused with the SDK's BreakerOpenError (before the foreign breaker and
   * the network) when the plan does not admit it, otherwise run through `call`, whose record says
   * what happened, and recorded once.
   */
  async run<T>(call: (record: CallRecord) => Promise<T>): Promise<T> {
    const trafficClass = this.options.trafficClass;
    if (!this.breaker.allow(trafficClass)) throw this.breaker.refusal(trafficClass);
    // while the group blocks, an admitted call is this instance's probe: let it through the hold
    const probe = this.blocked;
    if (probe) {
      this.probing += 1;
      this.foreign.release();
    }
    const record: CallRecord = {
      ran: false,
      settled: false,
      failed: false,
      value: undefined,
      error: undefined,
      latencyMs: Number.NaN,
    };
    try {
      const value = await call(record);
      this.settle(record, null);
      return value;
    } catch (err) {
      this.settle(record, err);
      throw err;
    } finally {
      if (probe) {
        this.probing -= 1;
        if (this.blocked && this.probing === 0) this.foreign.hold();
      }
    }
  }

  /** Starts timing a call that really runs (the adapters call it from inside the wrapped action). */
  static begin(record: CallRecord): number {
    record.ran = true;
    return performance.now();
  }

  /** Ends a call begun with begin(): what the action itself returned or threw. */
  static end(record: CallRecord, startedAt: number, failed: boolean, valueOrError: unknown): void {
    record.settled = true;
    record.failed = failed;
    if (failed) record.error = valueOrError;
    else record.value = valueOrError;
    record.latencyMs = performance.now() - startedAt;
  }

  dispose(): void {
    this.planSub.dispose();
    if (this.blocked) this.foreign.release();
    this.blocked = false;
  }

  private settle(record: CallRecord, thrown: unknown): void {
    const trafficClass = this.options.trafficClass;
    const info = (latencyMs: number, retryAfterMs?: number | null) => {
      const out: { latencyMs: number; trafficClass?: TrafficClass; retryAfterMs?: number } = { latencyMs };
      if (trafficClass !== undefined) out.trafficClass = trafficClass;
      if (retryAfterMs !== undefined && retryAfterMs !== null) out.retryAfterMs = retryAfterMs;
      return out;
    };
    // the foreign breaker refused (open, bulkhead full, cache hit): not an attempt. Recording it as
    // cancelled gives back a ramp slot or the probe token without counting against the dependency.
    if (!record.ran) {
      this.breaker.record('cancelled', info(Number.NaN));
      return;
    }
    if (!record.settled) {
      // the foreign breaker gave up first (its own timeout): its error says what happened
      this.breaker.record(classifyError(thrown), info(record.latencyMs));
      return;
    }
    if (record.failed) {
      this.breaker.record(classifyError(record.error), info(record.latencyMs));
      return;
    }
    let outcome: Outcome = 'success';
    let retryAfterMs: number | null = null;
    if (isResponseLike(record.value)) {
      const c = classifyResponse(record.value, this.slowOptions(record.latencyMs));
      outcome = c.outcome;
      retryAfterMs = c.retryAfterMs;
    } else if (
      this.options.slowThresholdMs !== undefined &&
      record.latencyMs > this.options.slowThresholdMs
    ) {
      outcome = 'slow';
    }
    this.breaker.record(outcome, info(record.latencyMs, retryAfterMs));
  }

  private slowOptions(latencyMs: number): { latencyMs: number; slowThresholdMs?: number } {
    return this.options.slowThresholdMs === undefined
      ? { latencyMs }
      : { latencyMs, slowThresholdMs: this.options.slowThresholdMs };
  }

  private follow(state: GlobalState): void {
    const blocked = blocks(state);
    if (blocked === this.blocked) return;
    this.blocked = blocked;
    // a probe in flight keeps its way through; the hold follows once it settles
    if (this.probing > 0) return;
    if (blocked) this.foreign.hold();
    // the group left OPEN: its decision replaces the foreign breaker's stale local one
    else this.foreign.release();
  }
}
