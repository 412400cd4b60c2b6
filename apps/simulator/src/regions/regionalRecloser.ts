// recloser across regions (S4, S8): the controller's own control layer, as in strategies/recloser.ts.
// Every instance runs the real SDK against the real ControlPlane on memory ports; the whole fleet is
// ONE group (`sim-fleet`) with one breaker of the dependency on one pool, whatever the region. The
// regional verdicts are the controller's: where the group's quorum stays CLOSED, the region core
// sets apart (regionsToOpen) opens its own region-scoped breaker (libs/control RegionBreakers,
// scope `region:<name>`); only that region's instances follow it (paused, probing on the pool's one
// probe budget, ramping) and its plans carry the region's shift (core planShift, this instance's
// part). Each instance's gate asks its SDK breaker: allow() for a call at home (which also lets
// out a granted probe), else breaker.route(regions) for a call the plan's shift lets move. Nothing
// of the policy lives here: this file wires the SDK to the workload and measures.
//
// `budgetPerRegion` builds the counterfactual for S8: the same fleet as one group per region
// (`sim-fleet.<region>`), each with a pool of its own (and so the full probe budget), i.e. two
// regions recovering on two budgets. Its groups' breakers are group breakers: their plans carry no
// shift, so its traffic stays at home.
import { createRecloser, type Breaker, type Recloser, type Transport } from '@recloser/client';
import { LIFECYCLE_TICK_MS, type ControlEvent } from '@recloser/control';
import {
  allowedInto,
  DEFAULT_POOL,
  DEFAULT_QUORUM,
  roundTo,
  seededRng,
  type BreakerPlan,
  type Outcome,
  type PoolConfig,
} from '@recloser/core';
import { InMemoryController } from '../controller/InMemoryController.js';
import { withPoolSettings } from '../scenarios/poolSettings.js';
import type { Simulation } from '../engine/Simulation.js';
import {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_TTL_MS,
  ISOLATION_AFTER_MS,
  SdkGate,
  SIM_DEPENDENCY,
  SIM_GROUP,
} from '../strategies/recloser.js';
import type { Fleet, Strategy, StrategyContext } from '../strategies/Strategy.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Worker } from '../workload/Worker.js';
import type { RegionalFigures } from './RegionalFigures.js';
import { RegionMeter } from './RegionMeter.js';
import { ScopeOpens } from './ScopeOpens.js';

/** Probe tokens the S4/S8 pool may have live at once. */
export const REGIONAL_PROBE_CONCURRENCY = 2;

/** The group of a region's instances in the budget-per-region counterfactual. */
export const regionGroup = (region: string): string => `${SIM_GROUP}.${region}`;

class RegionalGate implements CallGate {
  private pending: string;

  constructor(
    private readonly sim: Simulation,
    private readonly home: string,
    /** the regions in this instance's order of preference, its own first */
    private readonly order: readonly string[],
    private readonly breaker: Breaker,
    /** the instance's own region: the SDK breaker's allow()/record(), as in the recloser strategy */
    private readonly own: SdkGate,
    private readonly meter: RegionMeter,
  ) {
    this.pending = home;
  }

  acquire(): GateKind | null {
    // home first: allow() admits while the breaker it follows does (and lets out a granted probe,
    // which route() never answers while that breaker is paused)
    const kind = this.own.acquire();
    if (kind !== null) {
      this.pending = this.home;
      return kind;
    }
    // else the SDK's route(): a region the plan's shift lets receive, within its rate (its token)
    const to = this.breaker.route(this.order);
    if (to === null || to === this.home) return null;
    this.pending = to;
    return 'call';
  }

  route(): string {
    this.meter.sent(this.home, this.pending);
    return this.pending;
  }

  complete(
    kind: GateKind,
    outcome: Outcome,
    latencyMs: number,
    retryAfterMs: number | undefined,
    _attemptNo?: number,
    region?: string,
  ): void {
    if (region !== undefined && region !== this.home) {
      // a moved call says nothing about the home region's endpoint
      if (outcome === 'success') this.meter.movedSucceeded(region);
      return;
    }
    this.own.complete(kind, outcome, latencyMs, retryAfterMs);
  }

  wakeAt(): number | null {
    // while paused, the heartbeat ticker pumps the worker once a second: a shift's rate per
    // instance is well under one call a second, so its token waits at most that long
    return this.own.wakeAt() ?? (this.breaker.state === 'paused' ? this.sim.now() + 1000 : null);
  }

  isOpen(): boolean {
    return this.own.isOpen();
  }
}

function regionalStrategy(name: string, budgetPerRegion: boolean): Strategy {
  return {
    name,
    build(ctx: StrategyContext): Fleet {
      const { sim } = ctx;
      const trafficClass = ctx.workload.trafficClass;
      const regions = [...new Set(ctx.instances.map((i) => i.region))];
      const regionCapacity = ctx.provider.ratePerSecAt(1, 1);
      const share = budgetPerRegion ? regions.length : 1;
      const base = (): PoolConfig => {
        const pool = DEFAULT_POOL('sim-pool', SIM_DEPENDENCY);
        // the pool's capacity is the provider's quota (its regions' together); a pool per region
        // has its region's slice
        pool.capacity = {
          [trafficClass]: {
            ratePerSec: ctx.providerRatePerSec / share,
            concurrency: Math.max(1, Math.ceil(ctx.providerConcurrency / share)),
          },
        };
        pool.ramp = { ...pool.ramp, classOrder: [trafficClass] };
        pool.probe = {
          ...pool.probe,
          concurrency: REGIONAL_PROBE_CONCURRENCY,
          ratePerSec: REGIONAL_PROBE_CONCURRENCY,
        };
        pool.failureDomain = 'region';
        return withPoolSettings(pool, ctx.pool);
      };
      // one pool per region needs one dependency name per region (a dependency draws on one pool)
      const groupOf = (region: string): string => (budgetPerRegion ? regionGroup(region) : SIM_GROUP);
      const dependencyOf = (region: string): string =>
        budgetPerRegion ? `${SIM_DEPENDENCY}.${region}` : SIM_DEPENDENCY;
      const pools: PoolConfig[] = budgetPerRegion
        ? regions.map((r) => ({ ...base(), id: `sim-pool-${r}`, dependencies: [dependencyOf(r)] }))
        : [base()];
      const controller = new InMemoryController(sim.clock, seededRng(Math.floor(sim.rng.next() * 2 ** 31)), {
        group: groupOf(regions[0]!),
        dependency: dependencyOf(regions[0]!),
        pool: pools[0]!,
        quorum: DEFAULT_QUORUM,
        heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
        heartbeatTtlMs: HEARTBEAT_TTL_MS,
        isolationAfterMs: ISOLATION_AFTER_MS,
      });
      for (const p of pools.slice(1)) controller.control.pools.put(p);
      const meter = new RegionMeter(regions, () => regionCapacity);
      const opens = new ScopeOpens(regions);
      /** the regional verdict each region's instances live under, as the controller's breakers say */
      const verdicts: Record<string, string> = Object.fromEntries(regions.map((r) => [r, 'closed']));
      let regionTransitions = 0;
      // opens per scope come off the controller's event seam, as an operator's view would: a
      // region breaker's open counts for `region:<name>`, the group breaker's for `global` (in the
      // counterfactual a region's group is that region, so its group's open is the region's)
      controller.control.events.subscribe((e: ControlEvent) => {
        if (e.type !== 'breaker.transition') return;
        const d = e.data as { group: string; scope: string; region: string | null; from: string; to: string };
        const region = d.region ?? regions.find((r) => budgetPerRegion && regionGroup(r) === d.group) ?? null;
        const scope = region !== null ? `region:${region}` : 'global';
        if (region !== null) {
          regionTransitions += 1;
          verdicts[region] = d.to === 'closed' ? 'closed' : 'region_open';
        } else for (const r of regions) verdicts[r] = d.to === 'closed' ? 'closed' : 'open';
        if (d.from === 'closed' && d.to === 'open') opens.opened(scope);
      });

      // the budget invariant, sampled after every call the fleet makes to the controller
      let maxTokens = 0;
      const sampleTokens = (): void => {
        maxTokens = Math.max(maxTokens, controller.liveLeases());
      };
      const transport: Transport = {
        heartbeat: (req) => controller.heartbeat(req).finally(sampleTokens),
        lease: (req) => controller.lease(req).finally(sampleTokens),
        probeResult: (token, body) => controller.probeResult(token, body).finally(sampleTokens),
      };

      const sdks: Recloser[] = [];
      const gates: RegionalGate[] = [];
      /** each instance's part of its region's shift, from its latest plan (what the plans allow) */
      const shifts: (BreakerPlan['shift'] | undefined)[] = [];
      let workers: Worker[] = [];
      ctx.instances.forEach((inst, i) => {
        const sdk = createRecloser({
          instanceId: inst.id,
          group: groupOf(inst.region),
          region: inst.region,
          heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
          clock: sim.clock,
          rng: seededRng(Math.floor(sim.rng.next() * 2 ** 31)),
          transport,
          autoStart: false,
        });
        const breaker = sdk.breaker(dependencyOf(inst.region), {
          defaultClass: trafficClass,
          slowThresholdMs: ctx.workload.slowThresholdMs,
          backlog: () => workers[i]?.backlog() ?? 0,
        });
        breaker.onPlan((plan) => {
          shifts[i] = plan.shift;
        });
        sdks.push(sdk);
        const at = regions.indexOf(inst.region);
        const order = regions.map((_, k) => regions[(at + k) % regions.length]!);
        const own = new SdkGate(sim, breaker, trafficClass);
        gates.push(new RegionalGate(sim, inst.region, order, breaker, own, meter));
      });

      const endSecond = (): void => {
        // what the instances' parts of the plans together allow into each region (core allowedInto);
        // Array.from, not map: an instance that has no plan yet is a hole in `shifts`
        const into = allowedInto(
          Array.from(shifts, (shift) =>
            Object.fromEntries((shift?.receivers ?? []).map((r) => [r.region, r.ratePerSec])),
          ),
        );
        const allowed: Record<string, number> = {};
        for (const [region, rate] of into) allowed[region] = roundTo(rate);
        meter.endSecond(sim.now(), { ...verdicts }, allowed);
      };

      return {
        gate: (i) => gates[i]!,
        attach: (w) => {
          workers = w;
        },
        start: (untilMs) => {
          // the controller's lifecycle job at its production cadence; the meter closes each second
          sim.every(LIFECYCLE_TICK_MS, LIFECYCLE_TICK_MS / 2, untilMs, () => {
            sim.track(controller.tick());
          });
          sim.every(1000, 500, untilMs, endSecond);
          sdks.forEach((sdk, i) => {
            const worker = workers[i]!;
            sim.every(HEARTBEAT_INTERVAL_MS, sim.rng.next() * HEARTBEAT_INTERVAL_MS, untilMs, () =>
              sim.track(sdk.tick().then(() => worker.pump())),
            );
          });
        },
        // the group breaker's common figures would say nothing of a region's recovery: each region's
        // breaker has its own (regionalFigures)
        globalState: () => null,
        pool: () => pools[0]!,
        isolated: () => controller.isolated(),
        regionalFigures: (): RegionalFigures => {
          const m = meter.figures();
          return {
            opensByScope: opens.counts,
            maxShiftOverHeadroom: m.maxShiftOverHeadroom,
            maxProbeTokensInFlight: maxTokens,
            probeBudget: pools[0]!.probe.concurrency,
            regionBreakerTransitions: regionTransitions,
            regions: m.regions,
            regionalSeries: m.series,
          };
        },
      };
    },
  };
}

export const regionalRecloser = regionalStrategy('recloser', false);
export const budgetPerRegion = regionalStrategy('budget-per-region', true);
