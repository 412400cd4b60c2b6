// Region-scoped breakers in the control plane (the controller and the simulator alike). Where the
// group's quorum is evaluated and stays CLOSED, core regionsToOpen says which regions are set apart
// (`region_open`); each opens its own breaker (scope region:<R>) through the store's one writer, so
// the transition is logged and announced like any other. Heartbeats of R's instances then get the
// plan of R's breaker (core followedScope) — paused, probing, ramping on the pool's one probe budget —
// until it closes. This file only gathers inputs and remembers what it read; core decides.
import {
  DEFAULT_REGIONAL_POLICY,
  DEFAULT_SHIFT_POLICY,
  currentLevel,
  routedInto,
  followedScope,
  instanceShift,
  planShift,
  regionShiftInput,
  type BreakerPlan,
  type ShiftPlan,
  isLive,
  mayOpenRegion,
  onQuorum,
  regionsToOpen,
  regionCapacityShare,
  regionSlice,
  type PoolConfig,
  type QuorumFiguresWire,
} from '@recloser/core';
import { RecentCache } from '../RecentCache.js';
import { MemoryShifts } from '../memory/MemoryShifts.js';
import { nextShiftWrite } from './ShiftSteps.js';
import type {
  BreakerDecision,
  BreakerRecord,
  BreakerStore,
  ControlPorts,
  ControlSettings,
  GroupView,
  LiveCounts,
  LiveDemand,
  PresenceReader,
  ShiftStore,
} from '../ports.js';

/** A group's region breakers are re-read at most this often per process (changes here forget at once). */
export const REGION_VIEW_MS = 1000;
/** A group breaker's regions are judged at most this often per process (the periodic job catches up). */
export const REGION_EVALUATION_MS = 500;
const MAX_ENTRIES = 100_000;

export interface Followed {
  breaker: BreakerRecord;
  quorum: QuorumFiguresWire;
}

type Transition = (
  breakerId: string,
  decide: (
    state: BreakerRecord['globalState'],
    scope: { now: number; presence: Pick<ControlPorts['presence'], 'rows'> },
  ) => Promise<BreakerDecision | null>,
) => Promise<unknown>;

export class RegionBreakers {
  /** group breaker id → its region breakers (every state), as last read */
  private readonly byGroup = new RecentCache<Promise<BreakerRecord[]>>(() => REGION_VIEW_MS, MAX_ENTRIES);
  /** region breaker id → its group breaker id (to forget the right entry when it moves) */
  private readonly groupOf = new Map<string, string>();
  private readonly judged = new RecentCache<Promise<void>>(() => REGION_EVALUATION_MS, MAX_ENTRIES);
  /** region breaker id → its region's shift plan and live count, planned at most once per REGION_VIEW_MS */
  private readonly shifts = new RecentCache<Promise<{ plan: ShiftPlan; live: number }>>(
    () => REGION_VIEW_MS,
    MAX_ENTRIES,
  );
  /**
   * region breaker id → the last step of its shift once its breaker closed (the reversal runs on
   * from heartbeats of the region's instances until the stored shift is idle)
   */
  private readonly settled = new RecentCache<Promise<void>>(() => REGION_VIEW_MS, MAX_ENTRIES);
  /** the one authoritative shift state per region breaker (the controller: Postgres, under its row's lock) */
  private readonly store: ShiftStore;

  constructor(
    private readonly ports: {
      breakers: Pick<BreakerStore, 'find' | 'regionBreaker' | 'regionBreakers'>;
      presence: PresenceReader;
      rng: ControlPorts['rng'];
      shifts?: ShiftStore;
      events?: ControlPorts['events'];
    },
    private readonly settings: ControlSettings,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    const events = ports.events;
    this.store = ports.shifts ?? new MemoryShifts(events ? (drafts) => events.publish(drafts) : undefined);
  }

  /** A breaker changed (here or on another replica): its group's region list is read again. */
  forget(breakerId: string): void {
    const groupId = this.groupOf.get(breakerId);
    if (groupId) this.byGroup.delete(groupId);
  }

  /**
   * The breaker an instance of `region` follows for this group breaker, with the figures to show:
   * its region's while that one is not CLOSED and the group's is (core followedScope).
   */
  async follow(shown: Followed, region: string, now: number): Promise<Followed> {
    const g = shown.breaker;
    if (g.scopeKind !== 'group' || g.globalState.state !== 'closed') return shown;
    const own = (await this.regionsOf(g, now)).find((b) => b.region === region) ?? null;
    if (!own || followedScope(g.globalState.state, own.globalState.state) !== 'region') return shown;
    return { breaker: own, quorum: own.quorum };
  }

  /**
   * The regional verdicts of a CLOSED group breaker whose group quorum did not open it: each region
   * core sets apart opens its region breaker (if not open already). Filtered cheaply first (core
   * mayOpenRegion on the live counts) and judged at most once per REGION_EVALUATION_MS per breaker.
   */
  evaluate(
    g: BreakerRecord,
    counts: LiveCounts,
    group: GroupView,
    pool: PoolConfig,
    now: number,
    learningUntil: number,
    trigger: string,
    transition: Transition,
  ): Promise<void> {
    if (g.scopeKind !== 'group' || g.globalState.state !== 'closed') return Promise.resolve();
    if (!mayOpenRegion(counts.open, { now, quorum: group.quorum, learningUntil })) return Promise.resolve();
    return this.judged.through(g.id, now, () =>
      this.judge(g, group, pool, now, learningUntil, trigger, transition),
    );
  }

  private async judge(
    g: BreakerRecord,
    group: GroupView,
    pool: PoolConfig,
    now: number,
    learningUntil: number,
    trigger: string,
    transition: Transition,
  ): Promise<void> {
    const ttl = this.settings.heartbeatTtlMs;
    const context = (at: number) => ({ now: at, heartbeatTtlMs: ttl, quorum: group.quorum, learningUntil });
    const candidates = regionsToOpen(await this.ports.presence.rows(g.id, now - ttl), context(now));
    if (candidates.length === 0) return;
    const known = await this.regionsOf(g, now);
    for (const { region } of candidates) {
      if (known.some((b) => b.region === region && b.globalState.state !== 'closed')) continue;
      const rb = await this.ports.breakers.regionBreaker(g.group, g.dependency, region, g.poolId, now);
      this.groupOf.set(rb.id, g.id);
      // decided again under the region breaker's lock, on the group's rows as they are then
      await transition(rb.id, async (state, { now: at, presence }) => {
        if (state.state !== 'closed') return null;
        const rows = await presence.rows(g.id, at - ttl);
        const opening = regionsToOpen(rows, context(at)).find((o) => o.region === region);
        if (!opening) return null;
        const d = onQuorum(state, opening, at, pool, this.ports.rng);
        const quorum = { open: opening.open, live: opening.live, threshold: opening.threshold };
        return {
          ...d,
          quorum,
          formedBy: opening.formedBy,
          figures: {
            trigger,
            scope: `region:${region}`,
            regional: {
              region,
              regionErrorRate: opening.regionErrorRate,
              poolErrorRate: opening.poolErrorRate,
              groupBreakerId: g.id,
            },
          },
          basis: { rows: rows.filter((r) => r.region === region), policy: group.quorum },
        };
      });
    }
    this.byGroup.delete(g.id);
  }

  /**
   * The live demand of a region breaker's instances: the group breaker's live rows from its region
   * (heartbeats report on the group's breaker; the region breaker has no rows of its own).
   */
  async liveDemand(rb: BreakerRecord, now: number): Promise<LiveDemand[]> {
    const groupId = await this.groupIdOf(rb);
    if (groupId === null || rb.region === null) return [];
    const ttl = this.settings.heartbeatTtlMs;
    return (await this.ports.presence.rows(groupId, now - ttl))
      .filter((r) => r.region === rb.region && isLive(r, now, ttl))
      .map((r) => ({ instanceId: r.instanceId, demand: r.demand }));
  }

  /**
   * The pool a region breaker's ramp divides: its region's slice of the pool's capacity (core
   * regionSlice, by the region's share of the group breaker's live instances); the pool itself for
   * any other breaker.
   */
  async rampPool(rb: BreakerRecord, pool: PoolConfig, now: number): Promise<PoolConfig> {
    if (rb.scopeKind !== 'region' || rb.region === null) return pool;
    const groupId = await this.groupIdOf(rb);
    if (groupId === null) return pool;
    const ttl = this.settings.heartbeatTtlMs;
    const live = (await this.ports.presence.rows(groupId, now - ttl)).filter((r) => isLive(r, now, ttl));
    const inRegion = live.filter((r) => r.region === rb.region).length;
    return regionSlice(pool, regionCapacityShare(inRegion, live.length));
  }

  /**
   * The plan with its `shift` (core planShift over regionShiftInput, this instance's share) when it
   * is a region breaker's plan; any other plan unchanged. `group` is the group breaker the heartbeat
   * reported on (its rows are the region's evidence).
   */
  async withShift(
    plan: BreakerPlan,
    followed: BreakerRecord,
    group: BreakerRecord,
    pool: PoolConfig,
    now: number,
    /** the instance's region: a shift of its region breaker, closed since, is stepped on to its end */
    region?: string,
  ): Promise<BreakerPlan> {
    if (followed.scopeKind !== 'region' || followed.region === null) {
      if (region !== undefined) await this.settle(group, region, pool, now);
      return plan;
    }
    // a plan without its shift only keeps the region's calls at home: trouble here fails nothing
    const planned = this.shifts.through(followed.id, now, () => this.stepShift(followed, group, pool, now));
    try {
      const { plan: shift, live } = await planned;
      return { ...plan, shift: instanceShift(shift, live) };
    } catch (err) {
      this.warn(`shift plan of ${followed.id}: ${(err as Error).message}`);
      return plan;
    }
  }

  /**
   * One step of a region breaker's shift (core planShift over regionShiftInput) on the stored state,
   * stored back with what it allows, who receives too fast, and its phase change (ShiftSteps).
   */
  private async stepShift(
    rb: BreakerRecord,
    group: BreakerRecord,
    pool: PoolConfig,
    now: number,
  ): Promise<{ plan: ShiftPlan; live: number }> {
    const region = rb.region!;
    const ttl = this.settings.heartbeatTtlMs;
    const rows = await this.ports.presence.rows(group.id, now - ttl);
    const quota = Object.values(pool.capacity).reduce((s, c) => s + c.ratePerSec, 0);
    const input = regionShiftInput(rows, {
      now,
      heartbeatTtlMs: ttl,
      source: region,
      sourceState: rb.globalState.state,
      sourceLevel: currentLevel(rb.globalState, pool),
      poolCapacityPerSec: quota,
      maxReceiverErrorRate: DEFAULT_SHIFT_POLICY.degradedErrorRate,
    });
    const routedIn = routedInto(rows, now, ttl);
    let planned: ShiftPlan | null = null;
    await this.store.step(rb.id, group.id, (prev, others) => {
      const out = planShift(input, prev?.state ?? null, DEFAULT_SHIFT_POLICY);
      planned = out.plan;
      return nextShiftWrite(prev, others, {
        now,
        breaker: rb,
        groupBreakerId: group.id,
        source: region,
        out,
        routedIn,
        tolerance: DEFAULT_REGIONAL_POLICY.shiftTolerance,
      });
    });
    const sourceLive = rows.filter((r) => r.region === region && isLive(r, now, ttl)).length;
    return { plan: planned!, live: sourceLive };
  }

  /** The shift of `region`'s breaker, CLOSED now, stepped on (reversing, then idle) while one is stored. */
  private settle(group: BreakerRecord, region: string, pool: PoolConfig, now: number): Promise<void> {
    if (group.scopeKind !== 'group' || group.globalState.state !== 'closed') return Promise.resolve();
    const known = this.byGroup.get(group.id, now);
    if (known === undefined) return Promise.resolve(); // no region breaker read here yet
    return known
      .then(async (list) => {
        const own = list.find((b) => b.region === region);
        if (!own || own.globalState.state !== 'closed') return;
        await this.settled.through(own.id, now, async () => {
          const active = (await this.store.ofGroups([group.id])).some(
            (r) => r.breakerId === own.id && r.mode !== 'idle',
          );
          if (active) await this.stepShift(own, group, pool, now);
        });
      })
      .catch((err: unknown) => this.warn(`shift of ${group.id}/${region}: ${(err as Error).message}`));
  }

  /** A region breaker's group breaker id: remembered (ids never change), else read once. */
  private async groupIdOf(rb: BreakerRecord): Promise<string | null> {
    const known = this.groupOf.get(rb.id);
    if (known !== undefined) return known;
    const g = await this.ports.breakers.find(rb.group, rb.dependency);
    if (!g) return null;
    if (this.groupOf.size >= MAX_ENTRIES) this.groupOf.clear();
    this.groupOf.set(rb.id, g.id);
    return g.id;
  }

  private regionsOf(g: BreakerRecord, now: number): Promise<BreakerRecord[]> {
    return this.byGroup.through(g.id, now, async () => {
      const found = await this.ports.breakers.regionBreakers(g.group, g.dependency);
      if (this.groupOf.size >= MAX_ENTRIES) this.groupOf.clear();
      for (const b of found) this.groupOf.set(b.id, g.id);
      return found;
    });
  }
}
