// The orchestration of Recloser, written once: when core's decisions run and with what inputs.
// Both homes run this class — the NestJS controller over Postgres and Redis, the simulator over
// the in-memory ports — so the figures the simulator publishes describe the controller users run.
// Every decision is core's (evaluateQuorum, onQuorum, onTick, onProbeResult, applyOperatorAction,
// designateProbers, decideProbeGrant via the lease store, divideAllowances, findIsolated); this
// file only gathers their inputs through the ports and stores what they decide.
import {
  applyOperatorAction,
  DEFAULT_QUORUM,
  buildPlan,
  currentLevel,
  designatedIn,
  divideAllowances,
  rotationAt,
  evaluateQuorum,
  findIsolated,
  fleetDemand,
  instanceDemand,
  isLive,
  isLocallyOpen,
  onProbeResult,
  onQuorum,
  onTick,
  positiveDemand,
  probeFairShare,
  quorumNear,
  quorumThreshold,
  rankProbers,
  type BreakerPlan,
  type BreakerVerdict,
  type GlobalBreakerState,
  type GlobalState,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type IsolatedInstance,
  type NextAllowance,
  type OperatorAction,
  type PoolConfig,
  type ProbeGrant,
  type ProberRanking,
  type ProbeRefusalReason,
  type ProbeResultRequest,
  type QuorumDecision,
  type QuorumFiguresWire,
  type QuorumPolicy,
  type RampSample,
  type ReportedState,
} from '@recloser/core';
import { ControlError, isControlError } from './ControlError.js';
import { FallbackControl } from './fallback/FallbackControl.js';
import { RecentCache } from './RecentCache.js';
import { RegionBreakers } from './regions/RegionBreakers.js';
import {
  leftProbing,
  transitionEvents,
  type ControlEvent,
  type ControlEventDraft,
  type TransitionEventData,
} from './events.js';
import type {
  Allowance,
  BreakerDecision,
  BreakerRecord,
  CommittedTransition,
  ControlPorts,
  ControlSettings,
  GroupView,
  LiveCounts,
  LiveDemand,
  StepKey,
  TransitionScope,
  VerdictRow,
} from './ports.js';

/** The watch that remembers the last probe refusal announced for a probing breaker. */
const DENIED_WATCH = 'probe-denied';
/** Breakers a group may have unless configured otherwise. */
export const DEFAULT_MAX_BREAKERS_PER_GROUP = 1000;
/** instances a group may have unless configured: ten times the largest fleet the benchmarks run */
export const DEFAULT_MAX_INSTANCES_PER_GROUP = 100_000;
/**
 * The lifecycle tick (cooldowns, ramp gates) runs this often. A quarter second, not a second: a
 * ramp step's dwell and a probe's cooldown end between ticks, and each tick that passes them by
 * leaves admitted load below what the gates already allow (issue 13 measured 15 of 36 scenario
 * runs at 95 % of servable with 1000 ms, 18 with 250 ms). A tick that finds nothing due is a read.
 */
export const LIFECYCLE_TICK_MS = 250;
/** The live fleet's demand is re-read at most this often per breaker and process (a fraction of a heartbeat). */
export const LIVE_DEMAND_CACHE_MS = 500;

/**
 * How long this process's view of a breaker (its state and quorum figures) answers routine
 * heartbeats without a read. Its own transitions update it at once and other replicas' arrive
 * through the ChangeFeed; this bounds the staleness should a change announcement be lost.
 */
export const BREAKER_VIEW_MS = 1000;
/**
 * A routine heartbeat rewrites its rows only once they are this fraction of the TTL old: they stay
 * live with room to spare, and a fleet beating every second writes every other beat (at the
 * default TTL of five intervals) instead of every one.
 */
export const REFRESH_FRACTION = 0.25;
/** entries of the view and of the last-reported map kept at most (both are rebuilt on demand) */
const MAX_VIEW_ENTRIES = 100_000;
const MAX_REPORTED_ENTRIES = 1_000_000;
/** What a client waits before asking again when the lease store does not answer. */
export const STORE_DOWN_RETRY_MS = 1000;

export type EvaluationTrigger = 'heartbeat' | 'periodic';

export interface Evaluated {
  breaker: BreakerRecord;
  /** the figures to show: live figures while CLOSED, those of the opening decision otherwise */
  quorum: QuorumFiguresWire;
}

/** The recovery part of an instance's plan (core buildPlan's input). */
export interface RecoveryPlan {
  probe: ProbeGrant | null;
  /** this instance's share of the current step; `{}` when not admitted this period */
  allowance: Allowance | null;
  validForMs: number;
  /** its share of the next admission window, when the window moves within two heartbeats */
  next?: NextAllowance | null;
}

export interface ControlHooks {
  /** trouble that must not fail the caller (one breaker's tick, a plan without recovery figures) */
  warn?: (message: string) => void;
}

const REFUSALS: Record<ProbeRefusalReason, string> = {
  learning:
    'probe budget is frozen: the lease store lost its data and waits one lease TTL before granting again',
  concurrency: 'probe budget exhausted: the pool already has its maximum of live probe tokens',
  fair_share:
    "probe budget shared: other groups are probing through this pool too, and this group's breaker holds its share of the tokens",
  rate: 'probe budget exhausted: the pool granted its maximum of probe tokens in the last second',
};

export class ControlPlane<C extends CommittedTransition = CommittedTransition> {
  /** the controller learns the fleet for one TTL after this process started (and after a group was first seen) */
  readonly startedAt: number;
  private readonly liveDemandCache = new RecentCache<Promise<LiveDemand[]>>(() => LIVE_DEMAND_CACHE_MS);
  private readonly contendingCache = new RecentCache<Promise<number>>(() => LIVE_DEMAND_CACHE_MS);
  private readonly rankingCache = new RecentCache<
    Promise<{ ranking: ProberRanking; excluded: ReadonlySet<string> }>
  >(() => LIVE_DEMAND_CACHE_MS);
  /** what routine heartbeats are answered from: breaker and figures as last read or committed here */
  private readonly view = new RecentCache<Evaluated>(
    () => this.settings.breakerViewMs ?? BREAKER_VIEW_MS,
    MAX_VIEW_ENTRIES,
  );
  /** instances whose heartbeat this process has stored (group \0 instanceId): admitted already */
  private readonly metInstances = new Set<string>();
  /** a group's stored instance count, as last read */
  private readonly groupSizes = new RecentCache<{ count: number }>(
    () => LIVE_DEMAND_CACHE_MS,
    MAX_VIEW_ENTRIES,
  );
  /** (group, dependency) → breaker id, as heartbeats and lookups met them */
  private readonly breakerIds = new Map<string, string>();
  /** counts state changes seen here: a read that began before one may not enter the view */
  private viewGeneration = 0;
  /**
   * What this process last stored for (breaker, instance): an unchanged state is routine, and a
   * routine RAMPING report whose demand (`demand`, demandKey) is unchanged need not be rewritten yet
   */
  private readonly reported = new Map<string, { state: ReportedState; writtenAt: number; demand: string }>();
  /** heartbeats that wrote something decisive wait for one evaluation of all their breakers */
  private nextEvaluation: { ids: Set<string>; done: Promise<Map<string, Evaluated>> } | null = null;
  private lastEvaluation: Promise<unknown> = Promise.resolve();
  private readonly warn: (message: string) => void;
  /** regional fallback shares and owners in plans, the resumption cap, region.fallback */
  private readonly fallback: FallbackControl;
  /** region-scoped breakers: opened from regional verdicts, followed by their region's instances */
  private readonly regions: RegionBreakers;

  constructor(
    private readonly ports: ControlPorts<C>,
    readonly settings: ControlSettings,
    hooks: ControlHooks = {},
  ) {
    this.startedAt = ports.clock.now();
    this.warn = hooks.warn ?? (() => undefined);
    this.fallback = new FallbackControl(ports, settings, this.startedAt);
    this.regions = new RegionBreakers(ports, settings, this.warn);
    ports.changes?.listen((breakerId) => this.forget(breakerId));
  }

  // ---- heartbeats ------------------------------------------------------------------------------

  /**
   * One heartbeat: presence, one verdict per breaker, quorum evaluation, and the plan back.
   * Everything is validated before anything is written (a refused heartbeat changes nothing).
   */
  async heartbeat(heartbeat: HeartbeatRequest): Promise<HeartbeatResponse> {
    const seen = new Set<string>();
    for (const [i, b] of heartbeat.breakers.entries()) {
      if (seen.has(b.dependency))
        throw new ControlError(
          'bad_input',
          `breakers.${i}.dependency "${b.dependency}" appears more than once`,
        );
      seen.add(b.dependency);
    }
    const { presence, breakers, groups, pools, clock } = this.ports;
    const now = clock.now();
    const { instanceId, group } = heartbeat;
    await groups.seen(group, now);
    await this.admitInstance(group, instanceId, now);
    const poolOf = new Map<string, PoolConfig>();
    for (const v of heartbeat.breakers) poolOf.set(v.dependency, await pools.resolve(v.dependency, group));

    const ids = await breakers.idsFor(
      group,
      heartbeat.breakers.map((v) => ({ dependency: v.dependency, poolId: poolOf.get(v.dependency)!.id })),
      now,
      (existing, adding) => this.admitBreakers(group, existing, adding),
    );
    const verdicts = heartbeat.breakers.map((verdict) => ({
      breakerId: ids.get(verdict.dependency)!,
      verdict,
    }));
    if (this.breakerIds.size >= MAX_VIEW_ENTRIES) this.breakerIds.clear();
    for (const v of verdicts) this.breakerIds.set(`${group}\u0000${v.verdict.dependency}`, v.breakerId);
    // routine: every breaker CLOSED or RAMPING in the view, nothing locally open, each state as last
    // stored here. Such a heartbeat cannot change a decision (quorum is judged only while CLOSED; a
    // ramp is judged on its step evidence, which the evidence store keeps apart from the rows): it is
    // written behind and answered from the view. It is not written at all while the rows this
    // replica wrote are younger than REFRESH_FRACTION of the TTL (they are live either way) and, on a
    // RAMPING breaker, carry the demand reported now (a ramp's division reads it). Anything else is
    // written through and evaluated (with the other heartbeats waiting) before the answer.
    const shown = verdicts.map((v) => this.viewOf(v.breakerId, now));
    const last = verdicts.map((v) => this.reported.get(reportKey(v.breakerId, instanceId)));
    const routine = verdicts.every(
      (v, i) =>
        isRoutineState(shown[i]?.breaker.globalState.state) &&
        !isLocallyOpen(v.verdict.state) &&
        last[i]?.state === v.verdict.state,
    );
    const refreshAfterMs = this.settings.heartbeatTtlMs * REFRESH_FRACTION;
    const demands = verdicts.map((v) => demandKey(v.verdict.demand));
    // routed rates (issue 14) are the velocity of a shift now: a heartbeat carrying them is written
    const fresh =
      routine &&
      verdicts.every((v) => v.verdict.routed === undefined) &&
      last.every(
        (l, i) =>
          l !== undefined &&
          now - l.writtenAt < refreshAfterMs &&
          now >= l.writtenAt &&
          (shown[i]?.breaker.globalState.state === 'closed' || l.demand === demands[i]),
      );
    const written = fresh ? Promise.resolve() : presence.record(heartbeat, verdicts, now, routine);
    const stored = (i: number) => ({
      state: verdicts[i]!.verdict.state,
      writtenAt: now,
      demand: demands[i]!,
    });
    let evaluated: Map<string, Evaluated>;
    if (routine) {
      if (!fresh) {
        verdicts.forEach((v, i) => this.reported.set(reportKey(v.breakerId, instanceId), stored(i)));
        written.catch((err: unknown) => {
          for (const v of verdicts) this.reported.delete(reportKey(v.breakerId, instanceId));
          this.warn(`heartbeat of ${group}/${instanceId} written behind, lost: ${(err as Error).message}`);
        });
      }
      evaluated = new Map(verdicts.map((v, i) => [v.breakerId, shown[i]!]));
    } else {
      await written;
      if (this.metInstances.size >= MAX_REPORTED_ENTRIES) this.metInstances.clear();
      this.metInstances.add(`${group}\u0000${instanceId}`);
      if (this.reported.size >= MAX_REPORTED_ENTRIES) this.reported.clear();
      verdicts.forEach((v, i) => this.reported.set(reportKey(v.breakerId, instanceId), stored(i)));
      // quorum is judged only while CLOSED: a breaker the view shows recovering needs no count
      const judged = verdicts.filter((_, i) => !shown[i] || shown[i].breaker.globalState.state === 'closed');
      evaluated = new Map(
        judged.length > 0 ? await this.evaluateTogether(judged.map((v) => v.breakerId)) : [],
      );
      verdicts.forEach((v, i) => {
        if (!evaluated.has(v.breakerId)) evaluated.set(v.breakerId, shown[i]!);
      });
    }

    const plans: BreakerPlan[] = [];
    for (const verdict of heartbeat.breakers) {
      // an instance of a region set apart follows its region's breaker (core followedScope)
      const shownGroup = evaluated.get(ids.get(verdict.dependency)!)!;
      const { breaker, quorum } = await this.regions.follow(shownGroup, heartbeat.region, now);
      const pool = poolOf.get(verdict.dependency)!;
      const recovery = await this.recoveryPlan(breaker, pool, instanceId, verdict, now);
      // fallback shares are the group breaker's (its rows), whichever breaker the instance follows
      const fallback = await this.fallbackPlan(shownGroup.breaker, pool, heartbeat, verdict, now);
      const plan = buildPlan({
        breakerId: breaker.id,
        dependency: breaker.dependency,
        global: breaker.globalState,
        quorum,
        pool,
        allowance: recovery.allowance,
        next: recovery.next ?? null,
        probe: recovery.probe,
        validForMs: recovery.validForMs,
        fallback,
      });
      // a region breaker's plan carries its region's shift plan (issue 14)
      plans.push(
        await this.regions.withShift(plan, breaker, shownGroup.breaker, pool, now, heartbeat.region),
      );
    }
    return {
      serverTime: new Date(now).toISOString(),
      heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
      leaseTtlMs: this.settings.heartbeatTtlMs,
      breakers: plans,
    };
  }

  /**
   * The instance's part of the breaker's fallback table, and a reported fallback spell announced.
   * Trouble yields no fallback part (the instance keeps the last one it was told) and is not fatal.
   */
  private async fallbackPlan(
    breaker: BreakerRecord,
    pool: PoolConfig,
    heartbeat: HeartbeatRequest,
    verdict: BreakerVerdict,
    now: number,
  ): Promise<BreakerPlan['fallback']> {
    try {
      if (verdict.fallback)
        await this.fallback.reported(breaker, heartbeat.instanceId, heartbeat.region, verdict.fallback, now);
      return await this.fallback.planFor(breaker, pool, heartbeat.instanceId, heartbeat.region, now);
    } catch (err) {
      this.warn(`fallback plan for ${breaker.id}/${heartbeat.instanceId}: ${(err as Error).message}`);
      return null;
    }
  }

  /**
   * A group's instances are bounded (fresh instance ids must not grow the tables without end). An
   * instance this process has not met is counted against the bound, from a count at most
   * LIVE_DEMAND_CACHE_MS old while the group is well below it, else exactly; a stored instance is
   * never refused. Replicas admitting at the same instant may pass the bound by the few they add.
   */
  private async admitInstance(group: string, instanceId: string, now: number): Promise<void> {
    const key = `${group}\u0000${instanceId}`;
    if (this.metInstances.has(key)) return;
    const max = this.settings.maxInstancesPerGroup ?? DEFAULT_MAX_INSTANCES_PER_GROUP;
    const hit = this.groupSizes.get(group, now);
    if (hit && hit.count + 1 < max * 0.9) {
      hit.count += 1; // counted here until the next read: a burst of new ids reaches the exact check
    } else {
      const { count, known } = await this.ports.presence.groupInstances(group, instanceId);
      this.groupSizes.set(group, now, { count });
      if (!known && count >= max) {
        throw new ControlError(
          'conflict',
          `instanceId: group "${group}" has ${count} instances and may have at most ${max}; a new instance id is refused until silent ones are pruned or the limit is raised`,
        );
      }
    }
  }

  /**
   * A group's breakers are bounded (one buggy or hostile fleet inventing dependency names must not
   * grow the controller's tables and views without end). Checked before any is created; replicas
   * creating at the same instant may pass the bound by the few they add together.
   */
  private admitBreakers(group: string, existing: number, adding: number): void {
    const max = this.settings.maxBreakersPerGroup ?? DEFAULT_MAX_BREAKERS_PER_GROUP;
    if (existing + adding > max) {
      throw new ControlError(
        'conflict',
        `breakers: group "${group}" has ${existing} breakers and may have at most ${max}; this heartbeat would add ${adding} (new dependencies are refused until the limit is raised)`,
      );
    }
  }

  // ---- quorum ----------------------------------------------------------------------------------

  /** No quorum opens before this: one TTL after this process started and after the group was first seen. */
  learningUntil(group: Pick<GroupView, 'firstSeenAt'>): number {
    return Math.max(this.startedAt, group.firstSeenAt) + this.settings.heartbeatTtlMs;
  }

  /** Evaluates the given breakers' quorum; returns what each shows now, by id. */
  async evaluate(breakerIds: readonly string[], trigger: EvaluationTrigger): Promise<Map<string, Evaluated>> {
    const now = this.ports.clock.now();
    const out = new Map<string, Evaluated>();
    const generation = this.viewGeneration;
    for (const { breaker, counts } of await this.ports.breakers.withCounts(breakerIds, now)) {
      const evaluated = await this.evaluateOne(breaker, counts, now, trigger);
      out.set(breaker.id, evaluated);
      if (generation === this.viewGeneration) this.remember(evaluated, now);
    }
    return out;
  }

  /**
   * One evaluation for every heartbeat that asks while the previous one runs: the first asker opens
   * a batch, which starts when the running evaluation ends; later askers add their breakers to it
   * until it starts. Each asker's writes are durable before it asks, so the batch reads them.
   */
  private evaluateTogether(breakerIds: readonly string[]): Promise<Map<string, Evaluated>> {
    let batch = this.nextEvaluation;
    if (!batch) {
      const ids = new Set<string>();
      const done = this.lastEvaluation.then(() => {
        if (this.nextEvaluation?.ids === ids) this.nextEvaluation = null;
        return this.evaluate([...ids], 'heartbeat');
      });
      batch = { ids, done };
      this.nextEvaluation = batch;
      this.lastEvaluation = done.catch(() => undefined);
    }
    for (const id of breakerIds) batch.ids.add(id);
    return batch.done;
  }

  /**
   * The whole-group breaker of (group, dependency): from the view while it is fresh (ids never
   * change), else read (and, when it is recovering, kept in the view: its shown figures are stored).
   */
  private async findBreaker(group: string, dependency: string): Promise<BreakerRecord | null> {
    const key = `${group}\u0000${dependency}`;
    const now = this.ports.clock.now();
    const id = this.breakerIds.get(key);
    const seen = id ? this.viewOf(id, now) : undefined;
    if (seen) return seen.breaker;
    const generation = this.viewGeneration;
    const found = await this.ports.breakers.find(group, dependency);
    if (!found) return null;
    if (this.breakerIds.size >= MAX_VIEW_ENTRIES) this.breakerIds.clear();
    this.breakerIds.set(key, found.id);
    if (found.globalState.state !== 'closed' && generation === this.viewGeneration)
      this.remember({ breaker: found, quorum: found.quorum }, now);
    return found;
  }

  /** The view's entry for a breaker while it is fresh. */
  private viewOf(breakerId: string, now: number): Evaluated | undefined {
    return this.view.get(breakerId, now);
  }

  private remember(evaluated: Evaluated, now: number): void {
    this.view.set(evaluated.breaker.id, now, evaluated);
  }

  private forget(breakerId: string): void {
    this.viewGeneration += 1;
    this.view.delete(breakerId);
    this.regions.forget(breakerId);
  }

  /** The periodic evaluation: every CLOSED breaker with live trouble. Returns how many are not CLOSED after it. */
  async evaluateAll(): Promise<number> {
    const ids = await this.ports.presence.closedWithLiveTrouble(this.ports.clock.now());
    const evaluated = await this.evaluate(ids, 'periodic');
    return [...evaluated.values()].filter((e) => e.breaker.globalState.state !== 'closed').length;
  }

  private async evaluateOne(
    breaker: BreakerRecord,
    counts: LiveCounts,
    now: number,
    trigger: EvaluationTrigger,
  ): Promise<Evaluated> {
    if (breaker.globalState.state !== 'closed') return { breaker, quorum: breaker.quorum };
    const group =
      (await this.ports.groups.get(breaker.group)) ?? (await this.ports.groups.seen(breaker.group, now));
    const quorum = figuresFromCounts(counts, group.quorum);
    const pool = await this.ports.pools.resolve(breaker.dependency, breaker.group);
    if (!this.mayOpen(breaker.globalState, quorum, group, pool, now)) {
      // the group stays CLOSED: a region set apart opens its own breaker (core regionsToOpen)
      // its trouble does not fail the heartbeat: the periodic job judges the regions again
      await this.regions
        .evaluate(breaker, counts, group, pool, now, this.learningUntil(group), trigger, (id, decide) =>
          this.transition(id, decide),
        )
        .catch((err: unknown) => this.warn(`regions of breaker ${breaker.id}: ${(err as Error).message}`));
      return { breaker, quorum };
    }

    let decided: QuorumDecision | null = null;
    const outcome = await this.transition(breaker.id, async (state, { now: at, presence }) => {
      if (state.state !== 'closed') return null;
      const rows = await presence.rows(breaker.id, at - this.settings.heartbeatTtlMs);
      decided = this.decideQuorum(rows, group, at);
      const d = onQuorum(state, decided, at, pool, this.ports.rng);
      const basis = { rows, policy: group.quorum };
      return { ...d, quorum: figures(decided), formedBy: decided.formedBy, figures: { trigger }, basis };
    });
    const after = outcome.breaker;
    const shown = after.globalState.state === 'closed' ? (decided ? figures(decided) : quorum) : after.quorum;
    return { breaker: after, quorum: shown };
  }

  private decideQuorum(
    rows: Parameters<typeof evaluateQuorum>[0],
    group: GroupView,
    now: number,
  ): QuorumDecision {
    return evaluateQuorum(rows, {
      now,
      heartbeatTtlMs: this.settings.heartbeatTtlMs,
      policy: group.quorum,
      learningUntil: this.learningUntil(group),
    });
  }

  /**
   * A cheap filter so most heartbeats take no lock and read no rows. Every rule in it is core's
   * (threshold, learning period, an operator's quiet period): core, fed the live counts, would open now.
   */
  private mayOpen(
    state: GlobalBreakerState,
    quorum: QuorumFiguresWire,
    group: GroupView,
    pool: PoolConfig,
    now: number,
  ): boolean {
    if (quorum.open < quorum.threshold || this.decideQuorum([], group, now).learning) return false;
    return onQuorum(state, { ...quorum, reached: true }, now, pool, this.ports.rng).transitions.length > 0;
  }

  // ---- the lifecycle tick ------------------------------------------------------------------------

  /**
   * Core onTick for every breaker that is not CLOSED: OPEN → PROBING after its cooldown; a RAMPING
   * breaker judged on its step's sample and the live fleet's demand. One breaker's trouble does not
   * stall the others.
   */
  async tick(): Promise<{ breakers: number; transitions: number }> {
    const active = await this.ports.breakers.active();
    let transitions = 0;
    for (const breaker of active) {
      try {
        transitions += await this.tickOne(breaker);
      } catch (err) {
        this.warn(`lifecycle tick of breaker ${breaker.id}: ${(err as Error).message}`);
      }
    }
    return { breakers: active.length, transitions };
  }

  private async tickOne(breaker: BreakerRecord): Promise<number> {
    const { clock, rng, evidence } = this.ports;
    const resolved = await this.ports.pools.resolve(breaker.dependency, breaker.group);
    // a region breaker ramps over its region's slice of the pool (issue 14)
    const pool =
      breaker.globalState.state === 'ramping'
        ? await this.regions.rampPool(breaker, resolved, clock.now())
        : resolved;
    const seen = stepKeyOf(breaker.id, breaker.globalState);
    const sample = seen ? await evidence.sample(seen) : undefined;
    // what the live fleet wants (backlog included): the last step closes only when it fits
    const demand = seen ? fleetDemand(await this.liveDemandOf(breaker, clock.now())) : undefined;
    const input = (state: GlobalBreakerState, now: number) => {
      const current = stepKeyOf(breaker.id, state);
      // the sample belongs to the step read above; if the breaker moved since, judge nothing this tick
      const sampleNow: RampSample | undefined =
        current && seen && sameStep(current, seen) ? sample : undefined;
      return {
        now,
        rng,
        pool,
        ...(sampleNow ? { sample: sampleNow } : {}),
        ...(sampleNow && demand ? { demand } : {}),
      };
    };
    // most ticks change nothing (an OPEN breaker cooling down): those take no lock
    const preview = onTick(breaker.globalState, input(breaker.globalState, clock.now()));
    if (preview.transitions.length === 0 && sameState(preview.next, breaker.globalState)) return 0;
    const result = await this.transition(breaker.id, async (state, { now }) =>
      onTick(state, input(state, now)),
    );
    return result.transitions.length;
  }

  /** OPEN, not held by an operator, and its cooldown over: core onTick would start PROBING now. */
  private cooledDown(g: GlobalBreakerState): boolean {
    return (
      g.state === 'open' &&
      !g.operatorHold &&
      g.cooldownUntil !== null &&
      this.ports.clock.now() >= g.cooldownUntil
    );
  }

  // ---- probes ----------------------------------------------------------------------------------

  /**
   * POST /v1/probes/lease. Only a PROBING breaker leases tokens. OPEN answers retry_later with the
   * time left in its cooldown, or conflict when an operator holds it open; CLOSED and RAMPING answer
   * conflict (nothing to probe: call normally, or within the allowance).
   */
  async leaseProbe(req: { instanceId: string; group: string; dependency: string }): Promise<ProbeGrant> {
    const { dependency } = req;
    let breaker = await this.findBreaker(req.group, dependency);
    if (!breaker) {
      throw new ControlError(
        'not_found',
        `no breaker for group "${req.group}" and dependency "${dependency}": instances create it with their heartbeats`,
      );
    }
    if (this.cooledDown(breaker.globalState)) {
      // the cooldown is over but the lifecycle tick has not run yet: run it for this breaker now,
      // rather than make a prober wait up to a tick for a state core already allows
      await this.tickOne(breaker);
      breaker = (await this.ports.breakers.get(breaker.id)) ?? breaker;
    }
    const g = breaker.globalState;
    if (g.state === 'open' && g.operatorHold) {
      throw new ControlError(
        'conflict',
        `breaker for dependency "${dependency}" is held open by an operator: no probing until resume_ramp or force_close`,
      );
    }
    if (g.state === 'open') {
      const left = Math.max(0, (g.cooldownUntil ?? 0) - this.ports.clock.now());
      // a lease asked for once the cooldown is over starts PROBING itself (above): come back then
      throw new ControlError(
        'retry_later',
        `breaker for dependency "${dependency}" is open and cooling down; probing starts in about ${Math.round(left)} ms`,
        { retryAfterMs: Math.max(1, Math.ceil(left)), extra: { state: 'open' } },
      );
    }
    if (g.state !== 'probing') {
      throw new ControlError(
        'conflict',
        `breaker for dependency "${dependency}" is ${g.state}: probe tokens are leased only while it is probing`,
      );
    }
    // tokens go to live instances of the group: an id that never heartbeated has no call to probe with
    if (!(await this.isLiveHere(breaker.id, req.instanceId))) {
      throw new ControlError(
        'conflict',
        `instanceId "${req.instanceId}" has no live heartbeat for dependency "${dependency}": probe tokens go to live instances of the group`,
      );
    }
    const pool = await this.ports.pools.resolve(dependency, req.group);
    if (pool.probe.leases === 'designated') {
      const now = this.ports.clock.now();
      // asking for a token is wanting a call: the requester counts even with no demand reported
      if (!(await this.designated(breaker, pool, req.instanceId, 1, now))) {
        throw new ControlError(
          'conflict',
          `instanceId "${req.instanceId}" is not a designated prober of dependency "${dependency}" in epoch ${g.epoch}: the pool leases probe tokens to designated instances only (its heartbeat plan carries the token when it is one)`,
          { extra: { reason: 'not_designated' } },
        );
      }
    }
    const got = await this.leaseStore(async () =>
      this.ports.leases.grant({
        pool: pool.id,
        budget: pool.probe,
        breakerId: breaker.id,
        group: breaker.group,
        instanceId: req.instanceId,
        epoch: g.epoch,
        ...(await this.fairShare(pool)),
      }),
    );
    if (got.kind === 'granted' || got.kind === 'held') {
      // not awaited: the token stands in the lease store whether or not its announcement (metrics,
      // the live view; no decision reads it) commits, and the answer need not wait for Postgres
      if (got.kind === 'granted')
        this.announceGrant(breaker, req.instanceId, got.fencing).catch((err: unknown) =>
          this.warn(`grant of ${breaker.id} to ${req.instanceId} not announced: ${(err as Error).message}`),
        );
      return { token: got.token, fencing: got.fencing, validForMs: got.validForMs };
    }
    if (got.kind === 'refused') {
      await this.announceDenial(breaker, got.reason);
      throw new ControlError('retry_later', REFUSALS[got.reason], {
        retryAfterMs: got.retryAfterMs,
        extra: { reason: got.reason },
      });
    }
    throw new Error('lease store answered "none" to a grant');
  }

  /**
   * Whether the instance has a live verdict on the breaker: known without a read when this process
   * stored its report within the TTL (a routine report may wait WRITE_BEHIND_MS in a buffer, but it
   * was answered as live), else asked of the store.
   */
  private async isLiveHere(breakerId: string, instanceId: string): Promise<boolean> {
    const now = this.ports.clock.now();
    const stored = this.reported.get(reportKey(breakerId, instanceId));
    if (stored && isLive({ lastSeenAt: stored.writtenAt }, now, this.settings.heartbeatTtlMs)) return true;
    return this.ports.presence.isLive(breakerId, instanceId, now);
  }

  /**
   * POST /v1/probes/{token}/result: releases the token and hands the outcome to core onProbeResult
   * under the breaker's lock. A result of an older epoch changes nothing (core ignores it).
   * `authorize` sees the breaker's group before anything changes; a token of a group the caller may
   * not see is refused exactly as an unknown token.
   */
  async probeResult(
    token: string,
    result: ProbeResultRequest,
    authorize: (group: string) => void = () => undefined,
  ): Promise<{ state: GlobalState; epoch: number }> {
    const info = await this.leaseStore(() => this.ports.leases.check(token));
    if (!info) throw staleToken();
    const breaker = await this.ports.breakers.get(info.breakerId);
    if (!breaker) throw staleToken();
    try {
      authorize(breaker.group);
    } catch {
      // a token of another group answers as an unknown one: no oracle of which tokens exist
      throw staleToken();
    }
    const lease = await this.leaseStore(() => this.ports.leases.release(token));
    if (!lease) throw staleToken();
    const pool = await this.ports.pools.resolve(breaker.dependency, breaker.group);
    const outcome = await this.transition(lease.breakerId, async (state, { now }) =>
      onProbeResult(
        state,
        {
          outcome: result.outcome,
          latencyMs: result.latencyMs,
          ...(result.ttftMs !== undefined ? { ttftMs: result.ttftMs } : {}),
          epoch: lease.epoch,
        },
        pool,
        now,
        this.ports.rng,
      ),
    );
    return { state: outcome.breaker.globalState.state, epoch: outcome.breaker.globalState.epoch };
  }

  /** The lease expiry job: drop expired leases of every pool that may hold some. */
  async sweepLeases(): Promise<{ pools: number; expired: number }> {
    const pools = await this.ports.leases.pools();
    let expired = 0;
    for (const pool of pools) expired += await this.ports.leases.sweep(pool);
    return { pools: pools.length, expired };
  }

  // ---- operators -------------------------------------------------------------------------------

  /** force_open / force_close / pause_ramp / resume_ramp, recorded like every other transition. */
  async operatorAction(breakerId: string, action: OperatorAction, reason: string): Promise<C> {
    const breaker = await this.ports.breakers.get(breakerId);
    if (!breaker) throw new ControlError('not_found', `breaker ${breakerId} not found`);
    const pool = await this.ports.pools.resolve(breaker.dependency, breaker.group);
    // after force_close the quorum waits one heartbeat TTL: instances still report the old `open`
    const quiet = this.settings.heartbeatTtlMs;
    return this.transition(breakerId, async (s, { now }) => ({
      ...applyOperatorAction(s, action, reason, now, pool, this.ports.rng, quiet),
      figures: { trigger: 'operator' },
    }));
  }

  // ---- watches: conditions announced when they start and end -------------------------------------

  /**
   * Bad nodes (core findIsolated) and quorums near their threshold (core quorumNear), for every CLOSED
   * breaker with live trouble and every breaker still watched; announced on change only.
   */
  async watch(): Promise<{ breakers: number; events: number }> {
    const { presence, watches, breakers, clock } = this.ports;
    const now = clock.now();
    const ids = [
      ...new Set([...(await presence.closedWithLiveTrouble(now)), ...(await watches.watched())]),
    ].sort();
    const drafts: ControlEventDraft[] = [];
    for (const breaker of await breakers.getMany(ids)) {
      const g = breaker.globalState;
      const rows = await presence.rows(breaker.id, now - this.settings.heartbeatTtlMs);
      const isolated = this.isolatedIn(breaker, rows, now);
      const iso = await watches.swap(
        breaker.id,
        'isolated',
        isolated.map((i) => i.instanceId),
      );
      for (const instanceId of iso.joined) {
        const openForMs = isolated.find((i) => i.instanceId === instanceId)?.openForMs ?? 0;
        drafts.push(this.draft('instance.isolated', breaker, now, { instanceId, openForMs }));
      }
      for (const instanceId of iso.left)
        drafts.push(this.draft('instance.recovered', breaker, now, { instanceId }));

      let near = false;
      let q: QuorumFiguresWire | null = null;
      if (g.state === 'closed') {
        const group = (await this.ports.groups.get(breaker.group)) ?? { quorum: DEFAULT_QUORUM };
        const d = evaluateQuorum(rows, {
          now,
          heartbeatTtlMs: this.settings.heartbeatTtlMs,
          policy: group.quorum,
          learningUntil: now,
        });
        q = figures(d);
        near = quorumNear(q, this.settings.quorumNearFraction);
      }
      const band = await watches.swap(breaker.id, 'quorum-near', near ? ['near'] : []);
      if (band.joined.length > 0) drafts.push(this.draft('quorum.near', breaker, now, { quorum: q }));
      if (band.left.length > 0)
        drafts.push(this.draft('quorum.clear', breaker, now, { state: g.state, quorum: q }));
    }
    if (drafts.length > 0) await this.ports.events.publish(drafts);
    return { breakers: ids.length, events: drafts.length };
  }

  /** Instances of `rows` locally open past isolationAfterMs while the breaker is CLOSED (bad nodes). */
  isolatedIn(
    breaker: BreakerRecord,
    rows: readonly VerdictRow[],
    now = this.ports.clock.now(),
  ): IsolatedInstance[] {
    return findIsolated(rows, {
      now,
      heartbeatTtlMs: this.settings.heartbeatTtlMs,
      isolationAfterMs: this.settings.isolationAfterMs,
      groupState: breaker.globalState.state,
      groupClosedSince: breaker.globalState.since,
    });
  }

  // ---- the control layer's own consumer of the event seam ----------------------------------------

  /** A breaker that left PROBING: its outstanding tokens are stale; free the pool's slots now. */
  async handle(event: ControlEvent): Promise<void> {
    if (!leftProbing(event)) return;
    const { dependency, group } = event.data as unknown as TransitionEventData;
    const pool = await this.ports.pools.resolve(dependency, group);
    await this.ports.leases.releaseBreaker(pool.id, event.breakerId);
    await this.ports.watches.swap(event.breakerId, DENIED_WATCH, []);
  }

  // ---- recovery plans --------------------------------------------------------------------------

  /**
   * A probe token while PROBING (for the instances core designateProbers picks, from the same budget
   * as POST /v1/probes/lease), an allowance while RAMPING (core divideAllowances over the live demand,
   * divided once per allowance period and shared: DivisionStore). Trouble yields a plan without
   * recovery figures: the instance stays paused (or admits nothing) and asks again.
   */
  async recoveryPlan(
    breaker: BreakerRecord,
    pool: PoolConfig,
    instanceId: string,
    verdict: BreakerVerdict,
    receivedAt: number,
  ): Promise<RecoveryPlan> {
    const validForMs = this.settings.heartbeatTtlMs;
    const nothing: RecoveryPlan = { probe: null, allowance: null, validForMs };
    const g = breaker.globalState;
    if (g.state !== 'probing' && g.state !== 'ramping') return nothing;
    try {
      if (g.state === 'probing')
        return { ...nothing, probe: await this.probeFor(breaker, pool, instanceId, verdict, receivedAt) };
      const { allowance, next } = await this.allowanceFor(breaker, pool, instanceId, verdict, receivedAt);
      // resuming after a start: nothing beyond what an instance back from FALLBACK holds, now or next
      const cap = (a: Allowance) =>
        this.fallback.capAllowance({ breakerId: breaker.id, instanceId }, a, verdict.fallback, receivedAt) ??
        {};
      return {
        ...nothing,
        allowance: cap(allowance),
        ...(next !== null ? { next: { inMs: next.inMs, classes: cap(next.classes) } } : {}),
      };
    } catch (err) {
      this.warn(`recovery plan for ${breaker.id}/${instanceId}: ${(err as Error).message}`);
      return nothing;
    }
  }

  private async probeFor(
    breaker: BreakerRecord,
    pool: PoolConfig,
    instanceId: string,
    verdict: BreakerVerdict,
    now: number,
  ): Promise<ProbeGrant | null> {
    const { epoch } = breaker.globalState;
    const designated = await this.designated(
      breaker,
      pool,
      instanceId,
      instanceDemand(positiveDemand(verdict.demand)),
      now,
    );
    const request = {
      pool: pool.id,
      budget: pool.probe,
      breakerId: breaker.id,
      group: breaker.group,
      instanceId,
      epoch,
    };
    // a designated instance is granted (or keeps) a token; any other keeps only what it holds, and
    // so does one back from FALLBACK while this process resumes after a start
    const back = this.fallback.backFromFallback({ breakerId: breaker.id, instanceId }, verdict.fallback, now);
    const got =
      designated && back === undefined
        ? await this.ports.leases.grant({ ...request, ...(await this.fairShare(pool)) })
        : await this.ports.leases.held(request);
    // the token stands in the lease store whether or not its announcement commits: it is handed out
    if (got.kind === 'granted')
      await this.announceGrant(breaker, instanceId, got.fencing).catch((err: unknown) =>
        this.warn(`grant of ${breaker.id} to ${instanceId} not announced: ${(err as Error).message}`),
      );
    return got.kind === 'granted' || got.kind === 'held'
      ? { token: got.token, fencing: got.fencing, validForMs: got.validForMs }
      : null;
  }

  /**
   * Whether core designateProbers picks `instanceId` in this epoch, over the live fleet's demand
   * with the instance's own (`ownDemand`, as it reports it now) in place of what was read.
   */
  private async designated(
    breaker: BreakerRecord,
    pool: PoolConfig,
    instanceId: string,
    ownDemand: number,
    now: number,
  ): Promise<boolean> {
    const { ranking, excluded } = await this.proberRanking(breaker, pool.probe.concurrency, now);
    return designatedIn(ranking, instanceId, ownDemand > 0 && !excluded.has(instanceId));
  }

  /**
   * Core rankProbers over the live fleet's demand and the instances passed over in this epoch, at
   * most once per LIVE_DEMAND_CACHE_MS per breaker: each heartbeat then asks core designatedIn,
   * which answers as designateProbers over the whole fleet would, at O(probers) instead of O(N log N).
   */
  private proberRanking(
    breaker: BreakerRecord,
    count: number,
    now: number,
  ): Promise<{ ranking: ProberRanking; excluded: ReadonlySet<string> }> {
    const { epoch } = breaker.globalState;
    return this.rankingCache.through(`${breaker.id}\u0000${epoch}\u0000${count}`, now, async () => {
      const excluded = new Set(await this.ports.leases.excluded(breaker.id, epoch));
      const candidates = (await this.liveDemandOf(breaker, now)).map((l) => ({
        instanceId: l.instanceId,
        live: true,
        demand: instanceDemand(l.demand),
        excluded: excluded.has(l.instanceId),
      }));
      return { ranking: rankProbers(candidates, count, epoch), excluded };
    });
  }

  private async allowanceFor(
    breaker: BreakerRecord,
    pool: PoolConfig,
    instanceId: string,
    verdict: BreakerVerdict,
    receivedAt: number,
  ): Promise<{ allowance: Allowance; next: NextAllowance | null }> {
    const { epoch, step, stepSince } = breaker.globalState;
    const level = currentLevel(breaker.globalState, pool);
    if (step === null || level === null) return { allowance: {}, next: null };
    if (stepSince !== null) {
      // counted only if this window ran wholly under the step (core countsTowardStep, in the store).
      // Not awaited: the answer does not depend on it. The store writes it within its batch (the ramp
      // tick's sample waits for what this process accepted); a crash may lose a batch being written
      this.ports.evidence
        .add(
          { breakerId: breaker.id, epoch, step, stepSince },
          { instanceId, at: receivedAt },
          verdict.evidence,
        )
        .catch((err: unknown) =>
          this.warn(`ramp evidence of ${breaker.id}/${instanceId} lost: ${(err as Error).message}`),
        );
    }
    const periodMs = this.settings.heartbeatTtlMs;
    // divided afresh once per validity period (demand moves); who is admitted rotates once every
    // ROTATION_TTLS periods, so small steps reach every instance in turn (core rotationAt)
    const at = rotationAt(receivedAt, periodMs, this.settings.heartbeatIntervalMs);
    const shareOf = (period: number, rotation: number) =>
      this.ports.divisions.allowanceOf(
        { breakerId: breaker.id, epoch, step, period },
        instanceId,
        periodMs,
        async () => {
          const live = withCurrent(await this.liveDemandOf(breaker, receivedAt), instanceId, verdict);
          // a region breaker's ramp divides its region's slice of the pool (issue 14)
          const budget = await this.regions.rampPool(breaker, pool, receivedAt);
          return divideAllowances(budget, { step, level }, live, rotation);
        },
      );
    const allowance = await shareOf(at.period, at.rotation);
    if (at.announceInMs === null) return { allowance, next: null };
    // the move is announced ahead, from the next window's division (the one its period will read),
    // so the leaving instances stop and the entering ones start at the move with no idle heartbeat
    // between. One that loses both announcing heartbeats keeps its old share until its next
    // heartbeat: the two windows then overlap for less than one heartbeat interval.
    const next = await shareOf(at.nextPeriod, at.rotation + 1);
    if (isEmpty(allowance) && isEmpty(next)) return { allowance, next: null }; // nothing to tell
    return { allowance, next: { inMs: at.announceInMs, classes: next } };
  }

  /**
   * A group's share of the pool's probe concurrency (core probeFairShare over the groups with a
   * breaker OPEN or PROBING through the pool — one still cooling down will want its share soon — counted at
   * most once per LIVE_DEMAND_CACHE_MS per pool and process); nothing while one group has the pool.
   */
  private async fairShare(pool: PoolConfig): Promise<{ fairShareCap?: number }> {
    const contending = this.contendingCache.through(pool.id, this.ports.clock.now(), () =>
      this.ports.breakers.contendingGroups(pool.id),
    );
    const cap = probeFairShare(pool.probe.concurrency, await contending);
    // a share as large as the budget constrains nothing: the store need not count the group's leases
    return cap < pool.probe.concurrency ? { fairShareCap: cap } : {};
  }

  /** A breaker's live fleet: a region breaker's is its region's instances on the group's rows. */
  private liveDemandOf(breaker: BreakerRecord, now: number): Promise<LiveDemand[]> {
    if (breaker.scopeKind !== 'region') return this.liveDemand(breaker.id, now);
    return this.liveDemandCache.through(breaker.id, now, () => this.regions.liveDemand(breaker, now));
  }

  /** The live fleet's demand, read at most once per LIVE_DEMAND_CACHE_MS per breaker. */
  private liveDemand(breakerId: string, now: number): Promise<LiveDemand[]> {
    return this.liveDemandCache.through(breakerId, now, () => this.ports.presence.liveDemand(breakerId, now));
  }

  // ---- internals -------------------------------------------------------------------------------

  /** Every state change goes through here: the store commits it with its transition events. */
  private async transition(
    breakerId: string,
    decide: (state: GlobalBreakerState, scope: TransitionScope) => Promise<BreakerDecision | null>,
  ): Promise<C> {
    const committed = await this.ports.breakers.transition(breakerId, decide, transitionEvents);
    // the next heartbeat reads the breaker again, here and (told through the feed) on other replicas
    this.forget(breakerId);
    if (committed.transitions.length > 0) this.ports.changes?.announce(breakerId);
    return committed;
  }

  private async announceGrant(breaker: BreakerRecord, instanceId: string, fencing: number): Promise<void> {
    const now = this.ports.clock.now();
    await this.ports.events.publish([
      this.draft('probe.granted', breaker, now, { instanceId, fencing, epoch: breaker.globalState.epoch }),
    ]);
  }

  /** Refusals can come by the thousand: announced once per breaker, epoch and reason. */
  private async announceDenial(breaker: BreakerRecord, reason: ProbeRefusalReason): Promise<void> {
    const { epoch } = breaker.globalState;
    // the last (epoch, reason) announced stays set while the breaker probes; handle() clears it
    const { joined } = await this.ports.watches.swap(breaker.id, DENIED_WATCH, [`${epoch}:${reason}`]);
    if (joined.length === 0) return;
    const now = this.ports.clock.now();
    await this.ports.events.publish([this.draft('probe.denied', breaker, now, { reason, epoch })]);
  }

  private draft(
    type: ControlEventDraft['type'],
    breaker: BreakerRecord,
    at: number,
    data: Record<string, unknown>,
  ): ControlEventDraft {
    return {
      type,
      breakerId: breaker.id,
      at,
      data: { group: breaker.group, dependency: breaker.dependency, region: breaker.region, ...data },
    };
  }

  /** Lease store trouble becomes a quick retry_later (503): clients fall back, they do not hang. */
  private async leaseStore<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isControlError(err)) throw err;
      throw new ControlError('unavailable', `probe lease store unavailable: ${(err as Error).message}`, {
        retryAfterMs: STORE_DOWN_RETRY_MS,
      });
    }
  }
}

/** The figures of a CLOSED breaker from its live counts: K from core's quorumThreshold. */
export function figuresFromCounts(counts: LiveCounts, policy: QuorumPolicy): QuorumFiguresWire {
  return { open: counts.open, live: counts.live, threshold: quorumThreshold(counts.live, policy) };
}

export function figures(d: Pick<QuorumDecision, 'open' | 'live' | 'threshold'>): QuorumFiguresWire {
  return { open: d.open, live: d.live, threshold: d.threshold };
}

function staleToken(): ControlError {
  return new ControlError(
    'conflict',
    'probe token is not valid: it expired, was already reported, or was fenced off',
  );
}

function reportKey(breakerId: string, instanceId: string): string {
  return `${breakerId}\u0000${instanceId}`;
}

/**
 * A reported demand as a comparable string: core positiveDemand's figures by class, in class order
 * (what the stored row keeps of it).
 */
function demandKey(raw: BreakerVerdict['demand']): string {
  const demand = positiveDemand(raw);
  const classes = Object.keys(demand);
  if (classes.length > 1) classes.sort();
  return JSON.stringify(classes.map((cls) => [cls, demand[cls]]));
}

/** Global states whose unchanged, not locally open heartbeats decide nothing (see heartbeat). */
function isRoutineState(state: GlobalState | undefined): boolean {
  return state === 'closed' || state === 'ramping';
}

/** Whether an allowance admits no class (an instance admitted in neither window is told no move). */
function isEmpty(allowance: Allowance): boolean {
  for (const _ in allowance) return false;
  return true;
}

/** The live set with this heartbeat's own demand, which may be newer than the stored rows. */
function withCurrent(live: LiveDemand[], instanceId: string, verdict: BreakerVerdict): LiveDemand[] {
  const own: LiveDemand = { instanceId, demand: positiveDemand(verdict.demand) };
  return [...live.filter((l) => l.instanceId !== instanceId), own];
}

function stepKeyOf(breakerId: string, s: GlobalBreakerState): StepKey | null {
  if (s.state !== 'ramping' || s.step === null || s.stepSince === null) return null;
  return { breakerId, epoch: s.epoch, step: s.step, stepSince: s.stepSince };
}

function sameStep(a: StepKey, b: StepKey): boolean {
  return a.epoch === b.epoch && a.step === b.step && a.stepSince === b.stepSince;
}

/** Field-by-field equality of two states (the stored JSON's equality). */
export function sameState(a: GlobalBreakerState, b: GlobalBreakerState): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof GlobalBreakerState>;
  for (const k of keys) if ((a[k] ?? null) !== (b[k] ?? null)) return false;
  return true;
}
