// The per-dependency handle a worker wraps its calls with. It combines the instance's own local
// breaker (tier 1) with the controller's latest plan for the group. allow() reads only in-memory
// fields: no network, no promise, no allocation.
import {
  LocalBreaker,
  classifyErrorCode,
  fallbackConduct,
  type BreakerPlan,
  type BreakerVerdict,
  type CallLabels,
  type ClassAllowance,
  type Clock,
  type GlobalState,
  type LocalBreakerInit,
  type LocalBreakerSnapshot,
  type LocalBreakerState,
  type Outcome,
  type ProbeGrant,
  type ProbeResultRequest,
  type ReportedState,
  type Rng,
  roundTo,
  type TrafficClass,
} from '@recloser/core';
import { ClassAdmission } from '../admission/ClassAdmission.js';
import { classifyResponse, isResponseLike, type Classified } from '../classify/Classify.js';
import { EventEmitter, type Event } from '../common/Event.js';
import { BreakerOpenError, type RefusalReason } from '../errors/Errors.js';
import { Credentials } from './Credentials.js';
import { FallbackSpell } from './FallbackSpell.js';
import { ShiftRouter } from './ShiftRouter.js';

/** The instance-side states of docs/architecture.md. */
export type BreakerState = 'closed' | 'local_open' | 'self_probe' | 'paused' | 'admitted' | 'fallback';

/** The state of a breaker the team already runs (opossum, cockatiel), as the adapters read it. */
export type ExternalBreakerState = 'closed' | 'open' | 'half_open';

/**
 * A local breaker of the team's own (opossum, cockatiel) that decides for this instance while the
 * group is CLOSED. Recloser's own local breaker then only gathers evidence (it never trips), and the
 * verdict reports this breaker's state; the group's plan (pause, probe token, ramp allowance) still
 * applies to every call.
 */
export interface ExternalLocalBreaker {
  state(): ExternalBreakerState;
}

export interface BreakerOptions {
  /** tuning of this instance's local breaker (tier 1) */
  local?: LocalBreakerInit;
  /** a breaker of your own that keeps the local verdict (see the opossum and cockatiel adapters) */
  external?: ExternalLocalBreaker;
  /** traffic class of calls that name none; default `standard` */
  defaultClass?: TrafficClass;
  /** a successful call slower than this counts as `slow` (systemic) */
  slowThresholdMs?: number;
  /**
   * classifies what `fn` resolved with; default: fetch-like Responses by status, anything else
   * success. Setting it (or slowThresholdMs) makes execute() time every call; otherwise only a
   * reservoir sample of calls is timed (latency is NaN for the others).
   */
  classifyResult?: (value: unknown, latencyMs: number) => Outcome | Classified;
  /** classifies what `fn` threw; default: the core's error table (AbortError, ECONNRESET, …) */
  classifyError?: (err: unknown) => Outcome;
  /** age of the oldest queued work item, reported as saturation evidence */
  queueAgeMs?: () => number | null;
  /**
   * work items waiting for this dependency (queued, not yet attempted), of the default class.
   * Reported as extra demand of backlog / BACKLOG_DRAIN_MS per second, so the controller sees
   * queued work — a caller that waits for a token asks only at the admitted pace — and keeps the
   * ramp's last step until what the fleet wants fits, instead of lifting every limit at once.
   */
  backlog?: () => number;
}

/**
 * The horizon over which a reported backlog is meant to drain: 10 s, about one ramp dwell (the
 * default dwell), so a backlog that the last step could clear within a dwell counts as fitting.
 */
export const BACKLOG_DRAIN_MS = 10_000;

export interface ExecuteOptions {
  signal?: AbortSignal;
  trafficClass?: TrafficClass;
}

/** fetch's init, plus the traffic class the call belongs to */
export interface BreakerFetchInit extends RequestInit {
  trafficClass?: TrafficClass;
}

export interface RecordInfo {
  latencyMs: number;
  ttftMs?: number;
  /** from a 429's Retry-After: no attempt on this dependency before it passes */
  retryAfterMs?: number;
  trafficClass?: TrafficClass;
  /**
   * What the call went to (region, endpoint, model, credential id — never the secret). A call
   * labelled with a credential id feeds that credential's own breaker: a 401/403 marks the
   * credential, never the dependency.
   */
  labels?: CallLabels;
}

export interface StateChangeEvent {
  dependency: string;
  from: BreakerState;
  to: BreakerState;
}

export interface ProbeEvent {
  dependency: string;
  /** `controller`: a leased probe token; `fallback`: a probe owner probing while the controller is unreachable */
  kind: 'controller' | 'fallback';
  outcome: Outcome;
  fencing: number | null;
  /** whether the controller took the result (always false for fallback probes) */
  accepted: boolean;
  error?: unknown;
}

export interface FallbackEvent {
  dependency: string;
  active: boolean;
}

/** What a Breaker needs from the Recloser that owns it. */
export interface BreakerHost {
  readonly clock: Clock;
  readonly rng: Rng;
  heartbeatIntervalMs(): number;
  /** local time control was lost (heartbeats failed for the configured intervals); Infinity while not */
  controlLostAt(): number;
  /** an ordinary instance cut off this long joins its region's fallback probing */
  readonly maxIsolationMs: number;
  postProbeResult(grant: ProbeGrant, body: ProbeResultRequest): Promise<void>;
  /** the fetch that Breaker.fetch() calls (globalThis.fetch unless the Recloser was given one) */
  readonly fetch: typeof globalThis.fetch;
  /** the instance's region (route() stays home while its breaker admits) */
  readonly region?: string;
}

/** no announced move pending (a switch time never reached) */
const NO_SWITCH = Number.POSITIVE_INFINITY;

// How a call was admitted; decides what its outcome settles.
const DENIED = 0;
const LOCAL = 1;
const PROBE = 2;
const RAMP = 3;
const FALLBACK_PROBE = 4;
type Admission = typeof DENIED | typeof LOCAL | typeof PROBE | typeof RAMP | typeof FALLBACK_PROBE;

// What the group's state means for this instance.
type Mode = 'local' | 'blocked' | 'ramping';

const EXTERNAL_REPORTED: Record<ExternalBreakerState, ReportedState> = {
  closed: 'closed',
  open: 'open',
  half_open: 'half_open',
};
const EXTERNAL_LOCAL: Record<ExternalBreakerState, LocalBreakerState> = {
  closed: 'closed',
  open: 'local_open',
  half_open: 'self_probe',
};

function modeOf(state: GlobalState): Mode {
  return state === 'open' || state === 'probing' ? 'blocked' : state === 'ramping' ? 'ramping' : 'local';
}

export class Breaker {
  readonly local: LocalBreaker;
  private readonly external: ExternalLocalBreaker | undefined;
  private readonly defaultClass: TrafficClass;
  /** this dependency's credentials, each with its own breaker (a 401/403 is the credential's) */
  private readonly credentials: Credentials;
  private readonly classes = new Map<TrafficClass, ClassAdmission>();
  private defaultSlot: ClassAdmission | null = null;
  private readonly clock: Clock;
  /** slow detection and custom classifiers need every call's latency */
  private readonly timesEveryCall: boolean;

  private mode: Mode = 'local';
  private group: GlobalState | null = null;
  private epoch: number | null = null;
  /** local monotonic ms after which the last plan is stale (Infinity before the first plan) */
  private planExpiresAt = Number.POSITIVE_INFINITY;
  /** issue 13: local ms at which `nextClasses` replaces the allowance (NO_SWITCH: none pending) */
  private switchAt = NO_SWITCH;
  private nextClasses: Record<TrafficClass, ClassAllowance> = {};
  /** 429 Retry-After: no attempt before this local time (0 = none) */
  private nextAttemptAt = 0;

  private probeGrant: ProbeGrant | null = null;
  private probeExpiresAt = 0;
  private probeInFlight: ProbeGrant | null = null;
  private lastProbeToken: string | null = null;
  private probeWaiters: (() => void)[] = [];

  /** the fallback part of the last plan that had one (region share, owner or not) */
  private fallbackPlan: BreakerPlan['fallback'] = null;
  /** the spell in FALLBACK in progress (null outside one) */
  private spell: FallbackSpell | null = null;
  private fallbackProbeInFlight = false;
  /** when the fallback probe in flight was admitted, and the lease TTL of the last heartbeat answer */
  private fallbackProbeSince = 0;
  private leaseTtlMs = 0;
  /** fallback probes admitted since this breaker was made (owners' and late joins', local trips' included) */
  private fallbackProbeCount = 0;

  private lastState: BreakerState = 'closed';
  private lastLocal: LocalBreakerState = 'closed';
  private readonly stateChange = new EventEmitter<StateChangeEvent>();
  private readonly probe = new EventEmitter<ProbeEvent>();
  private readonly fallback = new EventEmitter<FallbackEvent>();
  private readonly plan = new EventEmitter<BreakerPlan>();

  readonly onStateChange: Event<StateChangeEvent> = this.stateChange.event;
  readonly onProbe: Event<ProbeEvent> = this.probe.event;
  readonly onFallback: Event<FallbackEvent> = this.fallback.event;
  readonly onPlan: Event<BreakerPlan> = this.plan.event;
  /** issue 14: the plan's shift, spent by route() */
  private readonly router: ShiftRouter;
  private readonly refused: Record<RefusalReason, number> = {
    local_open: 0,
    paused: 0,
    not_admitted: 0,
    rate: 0,
    concurrency: 0,
    retry_after: 0,
  };

  constructor(
    readonly dependency: string,
    private readonly options: BreakerOptions,
    private readonly host: BreakerHost,
  ) {
    this.clock = host.clock;
    this.credentials = new Credentials(host.clock);
    this.router = new ShiftRouter(host.clock, host.rng);
    this.external = options.external;
    // with a breaker of the team's own deciding locally, ours only gathers evidence: it never trips
    const local: LocalBreakerInit =
      options.external === undefined
        ? (options.local ?? {})
        : { ...options.local, mode: 'consecutive', consecutiveTicks: Number.POSITIVE_INFINITY };
    this.local = new LocalBreaker(local, host.clock, host.rng);
    this.defaultClass = options.defaultClass ?? 'standard';
    this.timesEveryCall = options.slowThresholdMs !== undefined || options.classifyResult !== undefined;
  }

  /** The controller's last word on the group (null before the first plan). */
  get globalState(): GlobalState | null {
    return this.group;
  }

  get localState(): LocalBreakerState {
    if (this.external !== undefined && this.local.state !== 'paused')
      return EXTERNAL_LOCAL[this.external.state()];
    return this.local.state;
  }

  get state(): BreakerState {
    if (this.isFallback()) return 'fallback';
    if (this.mode === 'blocked') return 'paused';
    const local = this.localState;
    if (local === 'local_open' || local === 'self_probe') return local;
    return this.mode === 'ramping' ? 'admitted' : 'closed';
  }

  /**
   * allow() for a call that would use `credentialId`: refused, without spending a probe token or an
   * allowance, while that credential is known bad (a probe must never use one: its result would
   * say nothing about the dependency).
   */
  allowWith(credentialId: string, trafficClass: TrafficClass = this.defaultClass): boolean {
    if (this.credentials.knownBad(credentialId)) return false;
    return this.allow(trafficClass);
  }

  /** Whether this instance knows `credentialId` is bad now (its own breaker is open). */
  credentialKnownBad(credentialId: string): boolean {
    return this.credentials.knownBad(credentialId);
  }

  /** The first of `credentialIds` (in order of preference) not known bad, or null when all are. */
  pickCredential(credentialIds: readonly string[]): string | null {
    return this.credentials.pick(credentialIds);
  }

  /**
   * May a call of this class start now? A true answer admits the call (it takes a ramp token,
   * the self-probe or the probe token), so follow it with the call and record() its outcome.
   */
  allow(trafficClass: TrafficClass = this.defaultClass): boolean {
    if (this.admit(trafficClass) !== DENIED) return true;
    this.refused[this.refusalOf(trafficClass).reason] += 1;
    return false;
  }

  /** Runs `fn` if the breaker admits it, classifies the result, and records it. */
  async execute<T>(
    fn: (signal: AbortSignal | undefined) => Promise<T> | T,
    options?: ExecuteOptions,
  ): Promise<T> {
    const trafficClass = options?.trafficClass ?? this.defaultClass;
    const signal = options?.signal;
    signal?.throwIfAborted();
    const admission = this.admit(trafficClass);
    if (admission === DENIED) {
      const refusal = this.refusal(trafficClass);
      this.refused[refusal.reason] += 1;
      throw refusal;
    }
    // the ramp that admitted it: if that ramp ends before the call settles, the call frees nothing of the next
    const ramp = admission === RAMP ? this.slot(trafficClass).ramp : -1;
    // Time only the calls whose latency is used: probes, slow checks, and the reservoir's sample.
    // Clock reads are the dearest part of a wrapped call, so most calls under load go untimed.
    const slot = this.local.latencySlot();
    const timed = slot >= 0 || this.timesEveryCall || admission === PROBE || admission === FALLBACK_PROBE;
    const startedAt = timed ? this.clock.now() : 0;
    let value: T;
    try {
      value = await fn(signal);
    } catch (err) {
      const outcome = signal?.aborted ? 'cancelled' : (this.options.classifyError ?? classifyErrorCode)(err);
      const latencyMs = timed ? this.clock.now() - startedAt : Number.NaN;
      this.settle(admission, trafficClass, outcome, latencyMs, undefined, null, slot, ramp);
      throw err;
    }
    const latencyMs = timed ? this.clock.now() - startedAt : Number.NaN;
    if (!this.timesEveryCall && !isResponseLike(value)) {
      // the common case allocates nothing: a plain value from a call that did not throw
      this.settle(admission, trafficClass, 'success', latencyMs, undefined, null, slot, ramp);
    } else {
      const c = this.classifyValue(value, latencyMs);
      this.settle(admission, trafficClass, c.outcome, latencyMs, undefined, c.retryAfterMs, slot, ramp);
    }
    return value;
  }

  /**
   * fetch() through the breaker: refused with a BreakerOpenError before any network when not
   * admitted; otherwise the Response is classified by status (429/5xx, Retry-After) and recorded,
   * and a thrown error by the core's table. The caller's `init.signal` aborts the call (an abort
   * is recorded as cancelled, not against the dependency).
   */
  fetch(input: string | URL | Request, init: BreakerFetchInit = {}): Promise<Response> {
    const { trafficClass, ...requestInit } = init;
    const options: ExecuteOptions = {};
    if (requestInit.signal) options.signal = requestInit.signal;
    if (trafficClass !== undefined) options.trafficClass = trafficClass;
    return this.execute(() => this.host.fetch(input, requestInit), options);
  }

  /** Resolves once no probe call of this breaker is in flight (at once when none is). */
  probeSettled(): Promise<void> {
    if (this.probeInFlight === null && !this.fallbackProbeInFlight) return Promise.resolve();
    return new Promise((resolve) => this.probeWaiters.push(resolve));
  }

  /**
   * Records the outcome of a call that allow() admitted (for callers that do not use execute()).
   * Without `info.latencyMs` the call counts as untimed: evidence, but no latency sample.
   */
  record(outcome: Outcome, info: Partial<RecordInfo> = {}): void {
    const credentialId = info.labels?.credentialId;
    if (credentialId !== undefined) this.credentials.record(credentialId, outcome);
    const trafficClass = info.trafficClass ?? this.defaultClass;
    this.settle(
      this.admissionOfRecorded(),
      trafficClass,
      outcome,
      info.latencyMs ?? Number.NaN,
      info.ttftMs,
      info.retryAfterMs ?? null,
    );
  }

  /** Why a call of this class would be refused now, and for how long (for BreakerOpenError). */
  refusal(trafficClass: TrafficClass = this.defaultClass): BreakerOpenError {
    const { reason, ms } = this.refusalOf(trafficClass);
    return new BreakerOpenError(this.dependency, reason, ms);
  }

  /**
   * Calls refused since the last call, by reason (allow() answering false, execute() throwing), handed
   * to `each` and reset. Counted in a fixed record: a refusal allocates nothing for it.
   */
  drainRefusals(each: (reason: RefusalReason, count: number) => void): void {
    for (const reason of Object.keys(this.refused) as RefusalReason[]) {
      const n = this.refused[reason];
      if (n === 0) continue;
      this.refused[reason] = 0;
      each(reason, n);
    }
  }

  private refusalOf(trafficClass: TrafficClass): { reason: RefusalReason; ms: number } {
    const now = this.clock.now();
    const interval = this.host.heartbeatIntervalMs();
    const wait = (reason: RefusalReason, ms: number) => ({
      reason,
      ms: Math.max(0, Math.ceil(Number.isFinite(ms) ? ms : interval)),
    });
    if (this.nextAttemptAt > now) return wait('retry_after', this.nextAttemptAt - now);
    if (this.mode === 'blocked') return wait('paused', interval);
    const selfProbeAt = this.local.selfProbeAt;
    if (selfProbeAt !== null) return wait('local_open', selfProbeAt - now);
    if (this.local.state === 'self_probe') return wait('local_open', interval);
    if (this.mode === 'ramping') {
      if (this.switchAt !== NO_SWITCH) this.switchIfDue();
      const slot = this.classes.get(trafficClass);
      if (slot === undefined || !slot.admitted) {
        // admitted from an announced move: until then
        const at = this.nextClasses[trafficClass] !== undefined ? this.switchAt : NO_SWITCH;
        return wait('not_admitted', at !== NO_SWITCH ? at - now : interval);
      }
      if (slot.concurrencyFull) return wait('concurrency', 0);
      return wait('rate', slot.msUntilToken());
    }
    return wait('local_open', 0);
  }

  // ---- driven by the Recloser -------------------------------------------------------------

  /** Closes this tick: the verdict for the heartbeat (evidence, demand per class, reported state). */
  closeTick(elapsedMs: number): BreakerVerdict {
    const now = this.clock.now();
    const evidence = this.local.tick(null); // the group's state arrives through applyPlan
    const queueAge = this.options.queueAgeMs?.();
    if (queueAge !== undefined) evidence.queueAgeMs = queueAge;
    const demand: Record<TrafficClass, number> = {};
    for (const [trafficClass, slot] of this.classes) {
      const rate = slot.closeDemand(elapsedMs);
      if (rate > 0) demand[trafficClass] = roundTo(rate);
    }
    const backlog = this.options.backlog?.();
    if (backlog !== undefined && Number.isFinite(backlog) && backlog > 0) {
      const wanted = (demand[this.defaultClass] ?? 0) + backlog / (BACKLOG_DRAIN_MS / 1000);
      demand[this.defaultClass] = roundTo(wanted);
    }
    // a probe call that never settled: its lease is gone, forget it
    if (this.probeInFlight !== null && now >= this.probeExpiresAt) {
      this.probeInFlight = null;
      this.wakeProbeWaiters();
    }
    if (this.probeGrant !== null && now >= this.probeExpiresAt) this.probeGrant = null;
    // a fallback probe that never settled (a call that hangs, or one never recorded) would stop this
    // instance's probing, and its use of the controller's tokens, for good: after a lease TTL it is
    // forgotten, as a controller probe is when its lease runs out
    if (this.fallbackProbeInFlight && now - this.fallbackProbeSince >= this.leaseTtlMs) {
      this.fallbackProbeInFlight = false;
      this.wakeProbeWaiters();
    }
    this.emitIfChanged();
    const verdict: BreakerVerdict = {
      dependency: this.dependency,
      state: this.reportedState(),
      evidence,
      demand,
    };
    // a spell in progress is reported on every heartbeat that tries to reach the controller, so the
    // first one that does tells it what this instance did and holds
    if (this.isFallback()) verdict.fallback = this.spellAt(now).report(now, this.holding(now));
    // the velocity of this instance's moves to other regions (issue 14: the controller sums them)
    const routed = this.router.closeWindow(elapsedMs);
    if (routed !== undefined) verdict.routed = routed;
    return verdict;
  }

  /** Applies the controller's plan. `sentAt` is the local time the heartbeat left: leases count from there. */
  applyPlan(plan: BreakerPlan, sentAt: number, leaseTtlMs: number): void {
    this.group = plan.global.state;
    this.epoch = plan.global.epoch;
    const mode = modeOf(plan.global.state);
    if (this.mode === 'ramping' && mode !== 'ramping')
      for (const slot of this.classes.values()) slot.forgetCalls();
    this.mode = mode;
    this.local.observeGroup({ state: plan.global.state });

    this.applyClasses(plan.allowance?.classes ?? {});
    this.planExpiresAt = sentAt + (plan.allowance?.validForMs ?? leaseTtlMs);
    this.leaseTtlMs = leaseTtlMs;
    // the admission window moves soon: switch at the move, counted from the send time as the
    // validity is. A later plan replaces what is pending (one without `next` cancels it)
    const next = plan.allowance?.next;
    this.switchAt = next !== undefined && next.inMs >= 0 ? sentAt + next.inMs : NO_SWITCH;
    this.nextClasses = next?.classes ?? {};
    if (this.switchAt !== NO_SWITCH) this.switchIfDue(); // already past on a slow answer

    if (plan.probe !== null && plan.probe.token !== this.lastProbeToken) {
      this.probeGrant = plan.probe;
      this.lastProbeToken = plan.probe.token;
      this.probeExpiresAt = sentAt + plan.probe.validForMs;
    }
    if (plan.fallback !== null) this.fallbackPlan = plan.fallback;
    // control is back (a plan arrived): the spell ends; its report went out with the heartbeat this
    // plan answers. (The Recloser marks the controller reachable right after the plans are applied.)
    this.spell = null;
    this.router.apply(plan.shift ?? null);
    this.plan.fire(plan);
    this.emitIfChanged();
  }

  /**
   * Which of `regions` (in the caller's order of preference) to send the next call to: this
   * instance's own region while its breaker is not paused and, while it ramps, while its allowance
   * has room; otherwise (its region breaker paused, probing, or ramping with the allowance spent) a
   * region the plan's `shift` lets receive, within its rate (a token is spent);
   * null when none may take it now (degrade in place). A call routed home goes through allow() or
   * execute() as usual; one routed elsewhere was admitted by route() itself (its token).
   */
  route(regions: readonly string[]): string | null {
    // home while the breaker decides locally or runs in FALLBACK; while RAMPING, while its allowance
    // has room for a call now (the plan's shift carries what the ramp does not admit yet); never
    // while paused. The clock is read only when the group is paused or ramping.
    if (this.switchAt !== NO_SWITCH) this.switchIfDue();
    const ownAdmits =
      this.mode === 'local' ||
      this.isFallback() ||
      (this.mode === 'ramping' && this.slot(this.defaultClass).canAdmit());
    return this.router.route(this.host.region ?? null, ownAdmits, regions);
  }

  /** calls route() sent to each other region so far */
  routedCalls(): Record<string, number> {
    return this.router.movedCalls();
  }

  /** The local breaker's state, to keep across a restart (pass it back as `local.initialState`). */
  toJSON(): LocalBreakerSnapshot {
    return this.local.toJSON();
  }

  /** Called by the Recloser when reachability changes, so events fire without waiting for a call. */
  refreshState(): void {
    this.emitIfChanged();
  }

  /** fallback probes this breaker admitted so far (a monotonic count: telemetry, the simulator) */
  get fallbackProbes(): number {
    return this.fallbackProbeCount;
  }

  get planEpoch(): number | null {
    return this.epoch;
  }

  // ---- internals -------------------------------------------------------------------------

  /** core controlLost: heartbeats failed for the configured intervals, or the last plan ran out */
  private isFallback(): boolean {
    const now = this.clock.now();
    return now >= this.host.controlLostAt() || now >= this.planExpiresAt;
  }

  /** what this instance holds of the last allowance: its classes' rates while still valid */
  private holding(now: number): Record<TrafficClass, number> | null {
    if (this.mode !== 'ramping' || now >= this.planExpiresAt) return null;
    if (this.switchAt !== NO_SWITCH) this.switchIfDue();
    const out: Record<TrafficClass, number> = {};
    for (const [cls, slot] of this.classes) if (slot.ratePerSec > 0) out[cls] = slot.ratePerSec;
    return out;
  }

  private reportedState(): ReportedState {
    const local =
      this.external !== undefined && this.local.state !== 'paused'
        ? EXTERNAL_REPORTED[this.external.state()]
        : this.local.reportedState();
    if ((local === 'closed' || local === 'paused') && this.isFallback()) return 'fallback';
    return local;
  }

  /** Each class's share from a plan (or an announced move); classes absent are not admitted. */
  private applyClasses(classes: Record<TrafficClass, ClassAllowance>): void {
    for (const [trafficClass, slot] of this.classes) slot.apply(classes[trafficClass] ?? null);
    for (const trafficClass of Object.keys(classes))
      this.slot(trafficClass).apply(classes[trafficClass] ?? null);
  }

  /** Applies an announced move once the clock reaches it. */
  private switchIfDue(): void {
    if (this.clock.now() < this.switchAt) return;
    this.switchAt = NO_SWITCH;
    const classes = this.nextClasses;
    this.nextClasses = {};
    this.applyClasses(classes);
  }

  private slot(trafficClass: TrafficClass): ClassAdmission {
    // most calls name no class: skip the map lookup for them
    if (trafficClass === this.defaultClass && this.defaultSlot !== null) return this.defaultSlot;
    let slot = this.classes.get(trafficClass);
    if (slot === undefined) {
      slot = new ClassAdmission(this.clock); // once per class, never on the steady-state path
      this.classes.set(trafficClass, slot);
      if (trafficClass === this.defaultClass) this.defaultSlot = slot;
    }
    return slot;
  }

  private admit(trafficClass: TrafficClass): Admission {
    const slot = this.slot(trafficClass);
    slot.wanted += 1;
    if (this.nextAttemptAt !== 0) {
      if (this.clock.now() < this.nextAttemptAt) return DENIED;
      this.nextAttemptAt = 0;
    }
    // a breaker of the team's own decides locally: it refuses its own calls when it is open
    if (this.mode === 'local') {
      if (this.external !== undefined) return LOCAL;
      // closed: the same in FALLBACK (core fallbackConduct), so the hot path reads no clock
      if (this.local.state === 'closed') return this.local.allow() ? LOCAL : DENIED;
    }
    if (this.mode !== 'blocked' && this.isFallback()) return this.admitInFallback(slot);
    if (this.mode === 'local') return this.local.allow() ? LOCAL : DENIED;
    if (this.mode === 'ramping') return this.admitRamp(slot);
    return this.admitProbe();
  }

  /** FALLBACK (core fallbackConduct): the last allowance while valid, else fallback probes only. */
  private admitInFallback(slot: ClassAdmission): Admission {
    const now = this.clock.now();
    const locallyOpen = this.external === undefined && this.local.state !== 'closed';
    switch (fallbackConduct(this.group, locallyOpen, now < this.planExpiresAt)) {
      case 'local':
        return this.local.allow() ? LOCAL : DENIED;
      case 'allowance':
        return this.countSpell(this.admitRamp(slot));
      default:
        return this.mode === 'local' ? this.admitLocalInFallback() : this.admitFallbackProbe();
    }
  }

  /** A fallback probe when this instance's spell paces one now (an owner's share, or a late join). */
  private admitFallbackProbe(): Admission {
    if (this.probeInFlight !== null || this.fallbackProbeInFlight) return DENIED;
    const now = this.clock.now();
    const spell = this.spellAt(now);
    if (!spell.take(now, this.host.rng)) return DENIED;
    spell.attempts += 1;
    spell.probes += 1;
    this.fallbackProbeCount += 1;
    this.fallbackProbeInFlight = true;
    this.fallbackProbeSince = now;
    return FALLBACK_PROBE;
  }

  /** The local breaker's self-probe, in FALLBACK only when this instance's spell paces a probe now. */
  private admitLocalInFallback(): Admission {
    const now = this.clock.now();
    const spell = this.spellAt(now);
    if (!spell.ready(now, this.host.rng) || !this.local.allow()) return DENIED;
    spell.take(now, this.host.rng);
    spell.attempts += 1;
    spell.probes += 1;
    this.fallbackProbeCount += 1;
    return LOCAL;
  }

  private countSpell(admission: Admission): Admission {
    if (admission !== DENIED) this.spellAt(this.clock.now()).attempts += 1;
    return admission;
  }

  /** The spell in progress, begun at the moment control was lost or the plan ran out. */
  private spellAt(now: number): FallbackSpell {
    if (this.spell === null) {
      const startedAt = Math.min(now, this.planExpiresAt, this.host.controlLostAt());
      this.spell = new FallbackSpell(startedAt, this.fallbackPlan, this.host.maxIsolationMs);
    }
    return this.spell;
  }

  private admitRamp(slot: ClassAdmission): Admission {
    // the hot path: one comparison while no move is pending
    if (this.switchAt !== NO_SWITCH) this.switchIfDue();
    if (this.external === undefined && this.local.state !== 'closed') {
      // locally open during a ramp: only the self-probe, and only if the allowance has room for it
      if (!slot.canAdmit() || !this.local.allow()) return DENIED;
    }
    return slot.admit() ? RAMP : DENIED;
  }

  /** While the group is open or probing: only the call that carries a probe token. */
  private admitProbe(): Admission {
    if (this.probeInFlight !== null || this.fallbackProbeInFlight) return DENIED;
    const now = this.clock.now();
    const grant = this.probeGrant;
    if (grant !== null) {
      this.probeGrant = null;
      // the lease is the controller's: checked against our monotonic clock from the send time
      if (now < this.probeExpiresAt) {
        this.probeInFlight = grant;
        return PROBE;
      }
    }
    if (this.isFallback()) return this.admitFallbackProbe();
    return DENIED;
  }

  /** How the call that record() reports was admitted: allow() hands out at most one probe at a time. */
  private admissionOfRecorded(): Admission {
    if (this.probeInFlight !== null) return PROBE;
    if (this.fallbackProbeInFlight) return FALLBACK_PROBE;
    return this.mode === 'ramping' ? RAMP : LOCAL;
  }

  private classifyValue(value: unknown, latencyMs: number): Classified {
    if (this.options.classifyResult) {
      const c = this.options.classifyResult(value, latencyMs);
      return typeof c === 'string' ? { outcome: c, retryAfterMs: null } : c;
    }
    const slowThresholdMs = this.options.slowThresholdMs;
    if (isResponseLike(value)) {
      return classifyResponse(
        value,
        slowThresholdMs === undefined ? { latencyMs } : { latencyMs, slowThresholdMs },
      );
    }
    const slow = slowThresholdMs !== undefined && latencyMs > slowThresholdMs;
    return { outcome: slow ? 'slow' : 'success', retryAfterMs: null };
  }

  private settle(
    admission: Admission,
    trafficClass: TrafficClass,
    outcome: Outcome,
    latencyMs: number,
    ttftMs: number | undefined,
    retryAfterMs: number | null,
    latencySlot?: number,
    ramp?: number,
  ): void {
    if (admission === RAMP) this.classes.get(trafficClass)?.release(ramp);
    if (outcome === 'rate_limited' && retryAfterMs !== null && retryAfterMs > 0) {
      this.nextAttemptAt = Math.max(this.nextAttemptAt, this.clock.now() + retryAfterMs);
    }
    if (admission === PROBE) this.settleProbe(outcome, latencyMs, ttftMs, retryAfterMs);
    if (admission === FALLBACK_PROBE) {
      this.fallbackProbeInFlight = false;
      if (outcome === 'success' && this.spell !== null) this.spell.probeSuccesses += 1;
      this.wakeProbeWaiters();
      this.probe.fire({
        dependency: this.dependency,
        kind: 'fallback',
        outcome,
        fencing: null,
        accepted: false,
      });
    }
    this.local.record(outcome, latencyMs, ttftMs, latencySlot);
    // only the local breaker can have moved here; skipping the full check saves a clock read per call
    if (this.local.state !== this.lastLocal) this.emitIfChanged();
  }

  private settleProbe(
    outcome: Outcome,
    latencyMs: number,
    ttftMs: number | undefined,
    retryAfterMs: number | null,
  ): void {
    const grant = this.probeInFlight;
    this.probeInFlight = null;
    if (grant === null) return;
    if (outcome === 'cancelled') {
      // the caller gave up before learning anything: the next call may use the token, if still valid
      if (this.clock.now() < this.probeExpiresAt) this.probeGrant = grant;
      this.wakeProbeWaiters();
      return;
    }
    const body: ProbeResultRequest = { outcome, latencyMs };
    if (ttftMs !== undefined) body.ttftMs = ttftMs;
    if (retryAfterMs !== null) body.retryAfterMs = retryAfterMs;
    // posted before the waiters wake, so Recloser.close() finds the post among those to wait for
    const posted = this.host.postProbeResult(grant, body);
    this.wakeProbeWaiters();
    posted.then(
      () =>
        this.probe.fire({
          dependency: this.dependency,
          kind: 'controller',
          outcome,
          fencing: grant.fencing,
          accepted: true,
        }),
      (error: unknown) =>
        this.probe.fire({
          dependency: this.dependency,
          kind: 'controller',
          outcome,
          fencing: grant.fencing,
          accepted: false,
          error,
        }),
    );
  }

  private wakeProbeWaiters(): void {
    if (this.probeWaiters.length === 0) return;
    const waiters = this.probeWaiters;
    this.probeWaiters = [];
    for (const wake of waiters) wake();
  }

  private emitIfChanged(): void {
    this.lastLocal = this.local.state;
    const next = this.state;
    const from = this.lastState;
    if (next === from) return;
    this.lastState = next;
    this.stateChange.fire({ dependency: this.dependency, from, to: next });
    if (next === 'fallback' || from === 'fallback') {
      this.fallback.fire({ dependency: this.dependency, active: next === 'fallback' });
    }
  }
}
