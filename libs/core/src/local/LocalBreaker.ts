// Tier 1: the breaker each instance keeps per dependency. Evidence stays local and the first
// verdict is local: the instance stops attempting on its own evidence, reports the verdict in
// its heartbeat, and lets the controller decide whether the whole group is down.
import { backoffDelayMs, type BackoffOptions } from '../backoff/Backoff.js';
import { emptyEvidence, isSystemic } from '../outcome/Outcome.js';
import type { Rng } from '../random/Rng.js';
import type { Clock } from '../time/Clock.js';
import type { Evidence, GlobalState, Outcome, ReportedState } from '../wire.js';

export type LocalBreakerState = 'closed' | 'local_open' | 'self_probe' | 'paused';

export interface LocalBreakerOptions {
  /** `consecutive`: N bad ticks in a row; `window`: failure rate over the last windowTicks ticks */
  mode: 'consecutive' | 'window';
  consecutiveTicks: number;
  /**
   * a tick with fewer relevant attempts than this is pooled with the next sparse ticks until they
   * reach it (then they count as one tick); a success among them breaks the streak at once
   */
  minAttemptsPerTick: number;
  /** a tick is bad when systemic / relevant attempts >= this (1 = all of them) */
  systemicFraction: number;
  /** window mode: ticks judged together; consecutive mode: a streak lapses after more empty ticks than this */
  windowTicks: number;
  failureRateThreshold: number;
  minWindowAttempts: number;
  /** local cooldown before a self-probe; grows with each failed self-probe */
  cooldown: BackoffOptions;
  /** a self-probe whose outcome is never recorded counts as failed after this long */
  trialTimeoutMs: number;
  /** latency samples kept per tick for the p95 (reservoir-sampled beyond this) */
  latencySamples: number;
}

// Defaults that work for an instance calling once every few seconds as well as for a busy one:
// three bad ticks, a tick bad only when every relevant attempt failed systemically, and ticks
// without attempts neither extend nor break the streak. A busy instance still needs three whole
// seconds of nothing but failures; one calling every 2 s opens on its third failure in a row
// (~5 s into an outage); any success, 429 included, starts over.
export const DEFAULT_LOCAL_BREAKER: LocalBreakerOptions = {
  mode: 'consecutive',
  consecutiveTicks: 3,
  minAttemptsPerTick: 1,
  systemicFraction: 1,
  windowTicks: 10,
  failureRateThreshold: 0.5,
  minWindowAttempts: 20,
  cooldown: { baseMs: 5_000, maxMs: 60_000, multiplier: 2, jitter: 0.5 },
  trialTimeoutMs: 30_000,
  latencySamples: 128,
};

/** What a process may keep across a restart. Durations, not timestamps: clocks differ across processes. */
export interface LocalBreakerSnapshot {
  state: LocalBreakerState;
  reopenCount: number;
  streak: number;
  /** ms until the next self-probe is allowed, when locally open */
  nextProbeInMs: number | null;
  groupState: GlobalState | null;
}

export interface LocalBreakerInit extends Partial<LocalBreakerOptions> {
  initialState?: LocalBreakerSnapshot;
}

/** The group's state as the controller last told it; null when the controller did not answer. */
export interface GroupView {
  state: GlobalState;
}

const REPORTED: Record<LocalBreakerState, ReportedState> = {
  closed: 'closed',
  local_open: 'open',
  self_probe: 'half_open',
  paused: 'paused',
};

export class LocalBreaker {
  readonly options: LocalBreakerOptions;
  private current: LocalBreakerState = 'closed';
  private since: number;
  private groupState: GlobalState | null = null;

  // consecutive mode: bad ticks in a row; sparse ticks pooled until they reach minAttemptsPerTick;
  // ticks without relevant attempts since the last that had some
  private streak = 0;
  private pooledRelevant = 0;
  private pooledSystemic = 0;
  private idleTicks = 0;
  // window mode: per-tick relevant attempts and systemic failures, a ring of windowTicks
  private readonly windowAttempts: Float64Array;
  private readonly windowSystemic: Float64Array;
  private windowNext = 0;

  // local cooldown and self-probe
  private reopenCount = 0;
  private nextProbeAt = 0;
  private trialTaken = false;
  private trialStartedAt = 0;

  // the open tick's evidence, kept in preallocated fields so record() does not allocate
  private attempts = 0;
  private successes = 0;
  private readonly byClass = { overload: 0, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 };
  private readonly latencies: Float64Array;
  private readonly ttfts: Float64Array;
  private latencySeen = 0;
  private ttftSeen = 0;

  constructor(
    init: LocalBreakerInit,
    private readonly clock: Clock,
    private readonly rng: Rng,
  ) {
    const { initialState, ...options } = init;
    this.options = { ...DEFAULT_LOCAL_BREAKER, ...options };
    this.since = clock.now();
    this.windowAttempts = new Float64Array(Math.max(1, this.options.windowTicks));
    this.windowSystemic = new Float64Array(Math.max(1, this.options.windowTicks));
    this.latencies = new Float64Array(Math.max(1, this.options.latencySamples)).fill(Number.NaN);
    this.ttfts = new Float64Array(Math.max(1, this.options.latencySamples)).fill(Number.NaN);
    if (initialState) this.restore(initialState);
  }

  get state(): LocalBreakerState {
    return this.current;
  }

  /** local clock ms when the current state began */
  get stateSince(): number {
    return this.since;
  }

  /** local clock ms at which a locally open breaker may self-probe */
  get selfProbeAt(): number | null {
    return this.current === 'local_open' ? this.nextProbeAt : null;
  }

  reportedState(): ReportedState {
    return REPORTED[this.current];
  }

  /**
   * Hot path: may this instance attempt a call now? Allocation-free. While self-probing it admits
   * exactly one trial call (and consumes it), so call it only right before a real attempt.
   */
  allow(): boolean {
    switch (this.current) {
      case 'closed':
        return true;
      case 'local_open':
        if (this.clock.now() < this.nextProbeAt) return false;
        this.enter('self_probe');
        return this.takeTrial();
      case 'self_probe':
        return this.trialTaken ? false : this.takeTrial();
      case 'paused':
        return false;
    }
  }

  /**
   * Reservoir sampling decided before a call starts: the slot this call's latency will fill, or -1
   * when it would not be kept, so the caller can skip timing it (clock reads are the dearest part
   * of wrapping a call). Pass the slot to record().
   */
  latencySlot(): number {
    return this.reserve(this.latencies.length, this.latencySeen++);
  }

  /**
   * Adds one call's result to the current tick's evidence; a self-probe's result decides it.
   * A NaN latency means "not timed"; `latencySlot` is what latencySlot() returned before the call.
   */
  record(outcome: Outcome, latencyMs: number, ttftMs?: number, latencySlot?: number): void {
    if (outcome === 'cancelled') {
      if (this.current === 'self_probe') this.trialTaken = false; // the caller gave up: try again
      return;
    }
    this.attempts += 1;
    if (outcome === 'success') this.successes += 1;
    else this.byClass[outcome] += 1;
    const slot = latencySlot ?? this.reserve(this.latencies.length, this.latencySeen++);
    if (slot >= 0 && !Number.isNaN(latencyMs)) this.latencies[slot] = latencyMs;
    if (ttftMs !== undefined) {
      const ttftSlot = this.reserve(this.ttfts.length, this.ttftSeen++);
      if (ttftSlot >= 0) this.ttfts[ttftSlot] = ttftMs;
    }

    if (this.current === 'self_probe' && this.trialTaken) this.resolveTrial(outcome);
  }

  /**
   * Closes the tick window, evaluates it and returns its evidence. `group` is the controller's
   * latest word on the group, or null when it did not answer (the last known state is kept).
   */
  tick(group: GroupView | null): Evidence {
    const evidence = this.closeWindow();
    if (group !== null) this.groupState = group.state;
    if (this.applyGroup()) return evidence;
    const now = this.clock.now();
    if (
      this.current === 'self_probe' &&
      this.trialTaken &&
      now - this.trialStartedAt >= this.options.trialTimeoutMs
    ) {
      this.reopen();
      return evidence;
    }
    if (this.current === 'local_open' && now >= this.nextProbeAt) {
      this.enter('self_probe');
      return evidence;
    }
    if (this.current === 'closed') {
      // during a ramp the instance is ADMITTED: the controller's gates judge the admitted traffic
      // of the whole fleet (a collapse reopens the group at once), so local evidence neither trips
      // it nor is kept for after — a busy ramp step would otherwise open instances that then sit
      // on allowance they cannot use
      if (this.groupState === 'ramping') this.clearTripState();
      else if (this.shouldTrip()) this.open();
    }
    return evidence;
  }

  /**
   * Takes the controller's word on the group between ticks (a plan just arrived), so pausing does
   * not wait for the next tick. Does not close the evidence window.
   */
  observeGroup(group: GroupView): void {
    this.groupState = group.state;
    this.applyGroup();
  }

  /** Group-driven transitions; true when the group decided the state this time. */
  private applyGroup(): boolean {
    if (this.groupBlocks()) {
      // the group is down: stop self-probing, the controller's probes decide recovery
      if (this.current !== 'paused') this.enter('paused');
      return true;
    }
    if (this.current === 'paused') {
      // the group recovered (or is ramping): stale local evidence must not re-trip at once
      this.clearTripState();
      this.reopenCount = 0;
      this.enter('closed');
      return true;
    }
    return false;
  }

  toJSON(): LocalBreakerSnapshot {
    const openish = this.current === 'local_open' || this.current === 'self_probe';
    return {
      state: this.current,
      reopenCount: this.reopenCount,
      streak: this.streak,
      nextProbeInMs: openish ? Math.max(0, this.nextProbeAt - this.clock.now()) : null,
      groupState: this.groupState,
    };
  }

  private restore(s: LocalBreakerSnapshot): void {
    const now = this.clock.now();
    this.groupState = s.groupState;
    this.reopenCount = Math.max(0, Math.floor(s.reopenCount));
    this.streak = Math.max(0, Math.floor(s.streak));
    // a self-probe in flight did not survive the restart: go back to open, probe again at once
    this.current = s.state === 'self_probe' ? 'local_open' : s.state;
    this.nextProbeAt = now + (s.nextProbeInMs ?? 0);
    this.since = now;
  }

  private groupBlocks(): boolean {
    return this.groupState === 'open' || this.groupState === 'probing';
  }

  private takeTrial(): boolean {
    this.trialTaken = true;
    this.trialStartedAt = this.clock.now();
    return true;
  }

  private resolveTrial(outcome: Outcome): void {
    if (outcome === 'success') {
      this.clearTripState();
      this.reopenCount = 0;
      this.enter('closed');
    } else if (isSystemic(outcome)) {
      this.reopen();
    } else if (outcome === 'rate_limited') {
      // the dependency answered but is out of quota: wait again without counting it as a failure
      this.scheduleProbe();
      this.enter('local_open');
    } else {
      // client_error / auth say nothing about the dependency: the next call is the trial
      this.trialTaken = false;
    }
  }

  private shouldTrip(): boolean {
    const o = this.options;
    if (o.mode === 'consecutive') return this.streak >= o.consecutiveTicks;
    let attempts = 0;
    let systemic = 0;
    for (let i = 0; i < this.windowAttempts.length; i++) {
      attempts += this.windowAttempts[i]!;
      systemic += this.windowSystemic[i]!;
    }
    return attempts > 0 && attempts >= o.minWindowAttempts && systemic / attempts >= o.failureRateThreshold;
  }

  private open(): void {
    this.reopenCount = 0;
    this.scheduleProbe();
    this.clearTripState();
    this.enter('local_open');
  }

  private reopen(): void {
    this.reopenCount += 1;
    this.scheduleProbe();
    this.enter('local_open');
  }

  private scheduleProbe(): void {
    this.trialTaken = false;
    this.nextProbeAt = this.clock.now() + backoffDelayMs(this.reopenCount, this.options.cooldown, this.rng);
  }

  private clearTripState(): void {
    this.streak = 0;
    this.pooledRelevant = 0;
    this.pooledSystemic = 0;
    this.idleTicks = 0;
    this.windowAttempts.fill(0);
    this.windowSystemic.fill(0);
    this.trialTaken = false;
  }

  private enter(state: LocalBreakerState): void {
    this.current = state;
    this.since = this.clock.now();
  }

  /** Algorithm R: the `seen`-th item (0-based) is kept with probability capacity/(seen+1), in a uniform slot. */
  private reserve(capacity: number, seen: number): number {
    if (seen < capacity) return seen;
    const slot = Math.floor(this.rng.next() * (seen + 1));
    return slot < capacity ? slot : -1;
  }

  /**
   * Consecutive mode's streak. A tick with enough relevant attempts is judged alone. Fewer (a
   * low-traffic instance) prove nothing on their own: they are pooled until the pool holds enough,
   * and a pool that is not bad (a success among the failures) breaks the streak at once. Ticks
   * without relevant attempts change nothing, but after more than windowTicks of them in a row the
   * streak lapses (evidence that old says nothing about now).
   */
  private judgeTick(relevant: number, systemic: number): void {
    const o = this.options;
    if (relevant <= 0) {
      this.idleTicks += 1;
      if (this.idleTicks > o.windowTicks) {
        this.streak = 0;
        this.pooledRelevant = 0;
        this.pooledSystemic = 0;
      }
      return;
    }
    this.idleTicks = 0;
    if (relevant >= o.minAttemptsPerTick) {
      this.streak = systemic / relevant >= o.systemicFraction ? this.streak + 1 : 0;
      this.pooledRelevant = 0;
      this.pooledSystemic = 0;
      return;
    }
    this.pooledRelevant += relevant;
    this.pooledSystemic += systemic;
    const bad = this.pooledSystemic / this.pooledRelevant >= o.systemicFraction;
    if (!bad || this.pooledRelevant >= o.minAttemptsPerTick) {
      this.streak = bad ? this.streak + 1 : 0;
      this.pooledRelevant = 0;
      this.pooledSystemic = 0;
    }
  }

  private closeWindow(): Evidence {
    const evidence = emptyEvidence();
    evidence.attempts = this.attempts;
    evidence.successes = this.successes;
    Object.assign(evidence.byClass, this.byClass);
    evidence.latencyP95Ms = p95(this.latencies, this.latencySeen);
    evidence.ttftP95Ms = p95(this.ttfts, this.ttftSeen);

    // client_error and auth say nothing about the dependency: leave them out of the denominator
    const relevant = this.attempts - this.byClass.client_error - this.byClass.auth;
    const systemic = this.byClass.overload + this.byClass.network + this.byClass.slow;
    this.judgeTick(relevant, systemic);
    this.windowAttempts[this.windowNext] = relevant;
    this.windowSystemic[this.windowNext] = systemic;
    this.windowNext = (this.windowNext + 1) % this.windowAttempts.length;

    this.attempts = 0;
    this.successes = 0;
    for (const key of Object.keys(this.byClass) as (keyof typeof this.byClass)[]) this.byClass[key] = 0;
    this.latencySeen = 0;
    this.ttftSeen = 0;
    // NaN marks slots no measured call filled (untimed, or still in flight)
    this.latencies.fill(Number.NaN);
    this.ttfts.fill(Number.NaN);
    return evidence;
  }
}

/** Nearest-rank 95th percentile of the measured samples (NaN slots skipped); null with none. */
function p95(samples: Float64Array, seen: number): number | null {
  const n = Math.min(seen, samples.length);
  const measured = samples
    .slice(0, n)
    .filter((v) => !Number.isNaN(v))
    .sort();
  if (measured.length === 0) return null;
  return measured[Math.ceil(0.95 * measured.length) - 1]!;
}
