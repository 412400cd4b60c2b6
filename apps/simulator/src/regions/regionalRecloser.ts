// recloser across regions (S4, S8): every instance runs the real SDK against the control plane on
// memory ports, as in strategies/recloser.ts, with two differences. Each region's instances form
// their own breaker of the dependency — a ControlPlane breaker of the group `<group>.<region>`, all
// drawing on ONE pool, so quorum is counted per region and the regions' recoveries share that
// pool's probe budget (its fair share between contending breakers). And the regional layer of the
// control plane (libs/control RegionalControl: core decideRegional + planShift) judges each second
// whether a region's open is region-local or global and plans how much of a failed region's traffic
// its instances may send to other regions; the gate below only spends that plan.
//
// `budgetPerRegion` builds the counterfactual for S8: the same fleet with one pool per region (each
// with the full budget), i.e. two regions recovering on two budgets.
import { createRecloser, type Recloser, type Transport } from '@recloser/client';
import { RegionalControl } from '@recloser/control';
import {
  DEFAULT_POOL,
  DEFAULT_QUORUM,
  seededRng,
  TokenBucket,
  type Outcome,
  type PoolConfig,
} from '@recloser/core';
import { InMemoryController } from '../controller/InMemoryController.js';
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

/** Probe tokens the S4/S8 pool may have live at once: two, so a fair share between two regions is one each. */
export const REGIONAL_PROBE_CONCURRENCY = 2;

export const regionGroup = (region: string): string => `${SIM_GROUP}.${region}`;

/**
 * Shared by a source region's gates: the plan they spend, one token bucket per receiver at the
 * plan's rate (burst 1), taken by whichever instance of the region has work first. This is NOT the
 * controller's path: there, region-scoped breakers (libs/control RegionBreakers) put each instance's
 * part of the shift in its plan and the SDK's breaker.route() (ShiftRouter, core chooseRoute) spends
 * it, moving calls only while the home breaker is paused; here a call moves whenever allow() refuses
 * it. S4/S8 still run one group per region (README, issue 14: not built in the simulator).
 */
interface SourceShare {
  buckets: Map<string, TokenBucket>;
}

class RegionalGate implements CallGate {
  private pending: string;

  constructor(
    private readonly sim: Simulation,
    private readonly home: string,
    /** the instance's own region: the SDK breaker, as in the single-region recloser strategy */
    private readonly own: SdkGate,
    private readonly share: SourceShare,
    private readonly meter: RegionMeter,
  ) {
    this.pending = home;
  }

  acquire(): GateKind | null {
    const kind = this.own.acquire();
    if (kind !== null) {
      this.pending = this.home;
      return kind;
    }
    // the home region cannot take it: spend the shift plan, if any
    for (const [region, bucket] of this.share.buckets) {
      if (bucket.tryTake()) {
        this.pending = region;
        return 'call';
      }
    }
    return null;
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
    let at: number | null = null;
    for (const bucket of this.share.buckets.values()) {
      const ms = bucket.msUntilNext();
      // the region's instances race for the next token: spread their wake-ups over a second
      if (Number.isFinite(ms))
        at = Math.min(at ?? Infinity, this.sim.now() + Math.max(1, ms) + this.sim.rng.next() * 1000);
    }
    const own = this.own.wakeAt();
    return own === null ? at : at === null ? own : Math.min(at, own);
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
      const base = (): PoolConfig => {
        const pool = DEFAULT_POOL('sim-pool', SIM_DEPENDENCY);
        // a region's breaker ramps against its region's slice of the provider (not built in the
        // controller yet: the pool's capacity stands for one region's slice in these runs)
        pool.capacity = {
          [trafficClass]: {
            ratePerSec: ctx.providerRatePerSec / regions.length,
            concurrency: Math.max(1, Math.ceil(ctx.providerConcurrency / regions.length)),
          },
        };
        pool.ramp = { ...pool.ramp, classOrder: [trafficClass] };
        pool.probe = {
          ...pool.probe,
          concurrency: REGIONAL_PROBE_CONCURRENCY,
          ratePerSec: REGIONAL_PROBE_CONCURRENCY,
        };
        pool.failureDomain = 'region';
        return pool;
      };
      // one pool per region needs one dependency name per region (a dependency draws on one pool)
      const dependencyOf = (region: string): string =>
        budgetPerRegion ? `${SIM_DEPENDENCY}.${region}` : SIM_DEPENDENCY;
      const pools: PoolConfig[] = budgetPerRegion
        ? regions.map((r) => ({ ...base(), id: `sim-pool-${r}`, dependencies: [dependencyOf(r)] }))
        : [base()];
      const controller = new InMemoryController(sim.clock, seededRng(Math.floor(sim.rng.next() * 2 ** 31)), {
        group: regionGroup(regions[0]!),
        dependency: dependencyOf(regions[0]!),
        pool: pools[0]!,
        quorum: DEFAULT_QUORUM,
        heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
        heartbeatTtlMs: HEARTBEAT_TTL_MS,
        isolationAfterMs: ISOLATION_AFTER_MS,
      });
      for (const p of pools.slice(1)) controller.control.pools.put(p);
      const regional = new RegionalControl(
        controller.control.presence,
        controller.control.breakers,
        sim.clock,
        {
          sources: regions.map((r) => ({ region: r, breakerId: `${regionGroup(r)}:${dependencyOf(r)}` })),
          capacityPerSec: Object.fromEntries(regions.map((r) => [r, regionCapacity])),
          poolQuotaPerSec: ctx.providerRatePerSec,
          heartbeatTtlMs: HEARTBEAT_TTL_MS,
          heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
          maxReceiverErrorRate: 1 - pools[0]!.ramp.gates.minSuccessRate,
        },
      );
      const meter = new RegionMeter(regions, () => regionCapacity);
      const opens = new ScopeOpens(regions);
      // the regions' breakers' transitions are not the group's: the common figures count only a
      // group-wide breaker as global; opens per scope come from the regional layer below
      let regionTransitions = 0;
      controller.onTransition = () => {
        regionTransitions += 1;
      };

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

      const shares = new Map(
        regions.map((r) => [r, { buckets: new Map<string, TokenBucket>() } as SourceShare]),
      );
      const sdks: Recloser[] = [];
      const gates: RegionalGate[] = [];
      let workers: Worker[] = [];
      ctx.instances.forEach((inst, i) => {
        const sdk = createRecloser({
          instanceId: inst.id,
          group: regionGroup(inst.region),
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
        sdks.push(sdk);
        const own = new SdkGate(sim, breaker, trafficClass);
        gates.push(new RegionalGate(sim, inst.region, own, shares.get(inst.region)!, meter));
      });

      const evaluateRegions = async (): Promise<void> => {
        for (const r of regions) regional.reportRouted(r, meter.movedInRate(r));
        for (const t of await regional.evaluate())
          if (t.to === 'region_open' || (t.scope === 'global' && t.to === 'open')) opens.opened(t.scope);
        const verdicts: Record<string, string> = {};
        const allowed: Record<string, number> = {};
        for (const r of regions) {
          verdicts[r] = regional.verdictOf(r);
          const plan = regional.planFor(r);
          const share = shares.get(r)!;
          const rates = new Map((plan?.receivers ?? []).map((rc) => [rc.region, rc.ratePerSec]));
          for (const to of [...share.buckets.keys()]) if (!rates.has(to)) share.buckets.delete(to);
          for (const [to, rate] of rates) {
            allowed[to] = (allowed[to] ?? 0) + rate;
            const bucket = share.buckets.get(to);
            if (bucket) bucket.reset(rate, 1);
            else {
              // a new receiver starts with no token: its first call waits one token's time
              const fresh = new TokenBucket(rate, 1, sim.clock);
              fresh.tryTake();
              share.buckets.set(to, fresh);
            }
          }
        }
        meter.endSecond(sim.now(), verdicts, allowed);
        // instances of a source with a fresh plan may send now
        for (let i = 0; i < workers.length; i++)
          if ((shares.get(ctx.instances[i]!.region)?.buckets.size ?? 0) > 0) workers[i]!.pump();
      };

      return {
        gate: (i) => gates[i]!,
        attach: (w) => {
          workers = w;
        },
        start: (untilMs) => {
          sim.every(1000, 500, untilMs, () => sim.track(controller.tick().then(evaluateRegions)));
          sdks.forEach((sdk, i) => {
            const worker = workers[i]!;
            sim.every(HEARTBEAT_INTERVAL_MS, sim.rng.next() * HEARTBEAT_INTERVAL_MS, untilMs, () =>
              sim.track(sdk.tick().then(() => worker.pump())),
            );
          });
        },
        // no one group-wide state: each region's breaker has its own (regionalFigures); the
        // whole-fleet budget checks of the common figures do not apply to a region's recovery
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
