// The controller's side of a simulated fleet, in memory. It composes the same core functions the
// NestJS controller composes — evaluateQuorum/onQuorum, onTick, onProbeResult, findIsolated,
// designateProbers, decideProbeGrant, divideAllowances, the step sample — and keeps in Maps what
// the controller keeps in Postgres (heartbeat rows, breaker state) and Redis (leases, step
// evidence). It is the SDK's Transport, so the real SDK talks to it exactly as it talks HTTP.
//
// Two simplifications, both about when (not how) a decision runs: quorum and the ramp are judged
// once per controller tick (1 s), and allowances are divided once per tick over the live demand
// rather than on every heartbeat (the live set hardly changes within a second; this keeps a
// 5,000-instance fleet at O(N) per second).
import {
  addEvidenceWindow,
  buildPlan,
  countsTowardStep,
  decideProbeGrant,
  designateProbers,
  divideAllowances,
  emptyStepWindows,
  evaluateQuorum,
  findIsolated,
  fleetDemand,
  instanceDemand,
  initialGlobalState,
  isLocallyOpen,
  isSystemic,
  onProbeResult,
  onQuorum,
  onTick,
  stepSample,
  type BreakerPlan,
  type ClassAllowance,
  type Clock,
  type Decision,
  type GlobalBreakerState,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type PoolConfig,
  type ProbeGrant,
  type ProbeResultRequest,
  type QuorumDecision,
  type QuorumPolicy,
  type QuorumRow,
  type Rng,
  type StepWindows,
  type TrafficClass,
  type TransitionRecord,
} from '@recloser/core';
import { TransportError, type ProbeLeaseRequest, type Transport } from '@recloser/client';

export interface InMemoryControllerOptions {
  group: string;
  dependency: string;
  pool: PoolConfig;
  quorum: QuorumPolicy;
  heartbeatIntervalMs: number;
  heartbeatTtlMs: number;
  /** an instance open this long while the group is closed is reported isolated (bad node) */
  isolationAfterMs: number;
}

interface Row extends QuorumRow {
  demand: Record<TrafficClass, number>;
}

interface Lease {
  token: string;
  fencing: number;
  instanceId: string;
  epoch: number;
  expiresAt: number;
}

export class InMemoryController implements Transport {
  private readonly rows = new Map<string, Row>();
  private state: GlobalBreakerState;
  private readonly startedAt: number;
  private lastQuorum: QuorumDecision;
  private windows: StepWindows = emptyStepWindows();
  private windowsKey = '';
  private leases: Lease[] = [];
  private recentGrants: number[] = [];
  private fencing = 0;
  private readonly excluded = new Set<string>();
  private excludedEpoch = -1;
  private designated: string[] = [];
  private allowances = new Map<string, Record<TrafficClass, ClassAllowance>>();
  private readonly isolatedEver = new Set<string>();
  readonly transitions: TransitionRecord[] = [];
  /** every transition, as it happens (the simulator records them; live mode prints them) */
  onTransition: (t: TransitionRecord) => void = () => undefined;

  constructor(
    private readonly clock: Clock,
    private readonly rng: Rng,
    readonly options: InMemoryControllerOptions,
  ) {
    this.startedAt = clock.now();
    this.state = initialGlobalState(this.startedAt);
    this.lastQuorum = { open: 0, live: 0, threshold: 0, reached: false, learning: true, formedBy: [] };
  }

  get global(): GlobalBreakerState {
    return this.state;
  }

  /** instances reported isolated at some point of the run, sorted */
  isolated(): string[] {
    return [...this.isolatedEver].sort();
  }

  /** Live leases now (the budget invariant: never more than pool.probe.concurrency). */
  liveLeases(): number {
    const now = this.clock.now();
    return this.leases.filter((l) => l.expiresAt > now).length;
  }

  // ---- the controller's jobs ------------------------------------------------------------------

  /** One controller tick: quorum, timers and the ramp, isolation, lease sweep, allowances. */
  tick(): void {
    const now = this.clock.now();
    const { pool } = this.options;
    this.sweepLeases(now);
    this.lastQuorum = evaluateQuorum([...this.rows.values()], {
      now,
      heartbeatTtlMs: this.options.heartbeatTtlMs,
      policy: this.options.quorum,
      learningUntil: this.startedAt + this.options.heartbeatTtlMs,
    });
    this.apply(onQuorum(this.state, this.lastQuorum, now, pool, this.rng));
    const base = { now, rng: this.rng, pool };
    // ramping: the step's evidence, and what the live fleet wants (backlog included), since the
    // last step closes only when it fits
    this.apply(
      onTick(
        this.state,
        this.state.state === 'ramping'
          ? { ...base, sample: stepSample(this.stepWindows()), demand: fleetDemand(this.liveRows(now)) }
          : base,
      ),
    );
    for (const i of findIsolated([...this.rows.values()], {
      now,
      heartbeatTtlMs: this.options.heartbeatTtlMs,
      isolationAfterMs: this.options.isolationAfterMs,
      groupState: this.state.state,
      groupClosedSince: this.state.since,
    })) {
      this.isolatedEver.add(i.instanceId);
    }
    this.refreshRecoveryPlans(now);
  }

  // ---- Transport: what the SDK calls --------------------------------------------------------

  heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    const now = this.clock.now();
    const verdict = req.breakers.find((b) => b.dependency === this.options.dependency);
    const breakers: BreakerPlan[] = [];
    if (verdict) {
      const prev = this.rows.get(req.instanceId);
      const open = isLocallyOpen(verdict.state);
      this.rows.set(req.instanceId, {
        instanceId: req.instanceId,
        region: req.region,
        state: verdict.state,
        lastSeenAt: now,
        openSince: open ? (prev?.openSince ?? now) : null,
        demand: { ...(verdict.demand ?? {}) },
      });
      // only a window that ran wholly under the current step's plan counts toward it
      const s = this.state;
      if (s.state === 'ramping' && s.stepSince !== null && countsTowardStep(prev?.lastSeenAt, s.stepSince)) {
        addEvidenceWindow(this.stepWindows(), verdict.evidence);
      }
      breakers.push(this.planFor(req.instanceId, now));
    }
    return Promise.resolve({
      serverTime: new Date(now).toISOString(),
      heartbeatIntervalMs: this.options.heartbeatIntervalMs,
      leaseTtlMs: this.options.heartbeatTtlMs,
      breakers,
    });
  }

  lease(req: ProbeLeaseRequest): Promise<ProbeGrant> {
    const now = this.clock.now();
    if (req.dependency !== this.options.dependency || this.state.state !== 'probing') {
      return Promise.reject(new TransportError('the breaker is not probing', 409));
    }
    const grant = this.grant(req.instanceId, now);
    if ('retryAfterMs' in grant) return Promise.reject(new TransportError('probe budget exhausted', 429));
    return Promise.resolve(grant);
  }

  probeResult(token: string, body: ProbeResultRequest): Promise<void> {
    const now = this.clock.now();
    const lease = this.leases.find((l) => l.token === token);
    if (!lease || lease.expiresAt <= now)
      return Promise.reject(new TransportError('token expired or fenced off', 409));
    this.leases = this.leases.filter((l) => l !== lease);
    if (isSystemic(body.outcome)) this.exclude(lease.instanceId, lease.epoch);
    this.apply(onProbeResult(this.state, { ...body, epoch: lease.epoch }, this.options.pool, now, this.rng));
    return Promise.resolve();
  }

  // ---- internals ----------------------------------------------------------------------------

  private apply(d: Decision): void {
    const before = this.state;
    this.state = d.next;
    for (const t of d.transitions) {
      this.transitions.push(t);
      this.onTransition(t);
    }
    if (before.state !== d.next.state || before.step !== d.next.step)
      this.refreshRecoveryPlans(this.clock.now());
  }

  /** The step's evidence, keyed like the controller's store: a new (epoch, step, stepSince) starts empty. */
  private stepWindows(): StepWindows {
    const key = `${this.state.epoch}:${this.state.step}:${this.state.stepSince}`;
    if (key !== this.windowsKey) {
      this.windowsKey = key;
      this.windows = emptyStepWindows();
    }
    return this.windows;
  }

  private liveRows(now: number): Row[] {
    const out: Row[] = [];
    for (const row of this.rows.values())
      if (row.lastSeenAt > now - this.options.heartbeatTtlMs) out.push(row);
    return out;
  }

  /** Designated probers while PROBING, allowances while RAMPING (recomputed each tick). */
  private refreshRecoveryPlans(now: number): void {
    const { pool } = this.options;
    const s = this.state;
    this.designated = [];
    this.allowances = new Map();
    if (s.state === 'probing') {
      const excluded = this.excludedIn(s.epoch);
      const candidates = this.liveRows(now).map((r) => ({
        instanceId: r.instanceId,
        live: true,
        demand: instanceDemand(r.demand),
        excluded: excluded.has(r.instanceId),
      }));
      this.designated = designateProbers(candidates, pool.probe.concurrency, s.epoch);
    } else if (s.state === 'ramping' && s.step !== null) {
      const live = this.liveRows(now).map((r) => ({ instanceId: r.instanceId, demand: r.demand }));
      // rotate who is admitted once per validity period, so small steps reach every instance in turn
      const rotation = Math.floor(now / this.options.heartbeatTtlMs);
      this.allowances = divideAllowances(pool, s.step, live, rotation);
    }
  }

  /** The probe token this instance holds or is granted now (probing), and its share (ramping), via buildPlan. */
  private planFor(instanceId: string, now: number): BreakerPlan {
    const s = this.state;
    let probe: ProbeGrant | null = null;
    if (s.state === 'probing') {
      // as the controller: a designated instance is granted (or keeps) a token, any other keeps what it holds
      const g = this.designated.includes(instanceId)
        ? this.grant(instanceId, now)
        : this.held(instanceId, now);
      if (g && !('retryAfterMs' in g)) probe = g;
    }
    return buildPlan({
      breakerId: `${this.options.group}:${this.options.dependency}`,
      dependency: this.options.dependency,
      global: s,
      quorum: this.lastQuorum,
      pool: this.options.pool,
      allowance: s.state === 'ramping' ? (this.allowances.get(instanceId) ?? null) : null,
      probe,
      validForMs: this.options.heartbeatTtlMs,
    });
  }

  /** The lease store's rule (core decideProbeGrant), on an in-memory lease list. */
  private grant(instanceId: string, now: number): ProbeGrant | { retryAfterMs: number } {
    const held = this.held(instanceId, now);
    if (held) return held;
    const live = this.leases.filter((l) => l.expiresAt > now);
    const budget = this.options.pool.probe;
    const nextExpiry = live.reduce((m, l) => Math.min(m, l.expiresAt), Number.POSITIVE_INFINITY);
    const decision = decideProbeGrant({
      now,
      liveLeases: live.length,
      ...(Number.isFinite(nextExpiry) ? { nextLeaseExpiryAt: nextExpiry } : {}),
      budget,
      recentGrantTimes: this.recentGrants,
      blockedUntil: 0,
    });
    if (!decision.grant) return { retryAfterMs: decision.retryAfterMs };
    this.fencing += 1;
    const lease: Lease = {
      token: `probe-${this.fencing}`,
      fencing: this.fencing,
      instanceId,
      epoch: this.state.epoch,
      expiresAt: now + budget.leaseTtlMs,
    };
    this.leases.push(lease);
    this.recentGrants = [...this.recentGrants.filter((t) => t > now - 1000), now];
    return { token: lease.token, fencing: lease.fencing, validForMs: budget.leaseTtlMs };
  }

  /** The live token this instance holds for the current epoch, if any. */
  private held(instanceId: string, now: number): ProbeGrant | null {
    const l = this.leases.find(
      (l) => l.instanceId === instanceId && l.expiresAt > now && l.epoch === this.state.epoch,
    );
    return l ? { token: l.token, fencing: l.fencing, validForMs: l.expiresAt - now } : null;
  }

  /** Expired leases free their slot; their holder sat on a token unused, so someone else probes next. */
  private sweepLeases(now: number): void {
    const expired = this.leases.filter((l) => l.expiresAt <= now);
    if (expired.length === 0) return;
    for (const l of expired) this.exclude(l.instanceId, l.epoch);
    this.leases = this.leases.filter((l) => l.expiresAt > now);
  }

  private exclude(instanceId: string, epoch: number): void {
    if (epoch !== this.state.epoch) return;
    this.excludedIn(epoch).add(instanceId);
  }

  /** The epoch's excluded set, keyed like the controller's store: a new epoch starts empty. */
  private excludedIn(epoch: number): Set<string> {
    if (this.excludedEpoch !== epoch) {
      this.excluded.clear();
      this.excludedEpoch = epoch;
    }
    return this.excluded;
  }
}
