// S6: the breaker flaps 10 times; the fleet's queue quarantines a unit after 5 reclaims
// (MaxRangeReclaims). The same fleet, provider and seed for each strategy; each instance consumes a
// leased queue (workqueue/) through its strategy's gate, and the fleet reports every attempt and
// reclaim to the controller's ledger. With `recloser`, the controller's reconciliation (libs/control
// Reconciliation on the memory ports, two runners at once, as two replicas would) issues refunds that
// the fleet pages and applies; `recloser-no-refunds` is the same fleet ignoring them; `naive` has
// per-instance breakers and no controller to reconcile with.
import { Reconciliation, MemoryHistory } from '@recloser/control';
import type { Reconciliation as ReconciliationT } from '@recloser/control';
import type { LedgerEvent } from '@recloser/core';
import { Simulation } from '../engine/Simulation.js';
import { Recorder } from '../metrics/Recorder.js';
import { Provider } from '../provider/Provider.js';
import { naive } from '../strategies/naive.js';
import { recloser, SIM_DEPENDENCY, SIM_GROUP } from '../strategies/recloser.js';
import type { Fleet, Strategy } from '../strategies/Strategy.js';
import { LeasedQueue, MAX_RANGE_RECLAIMS } from '../workqueue/LeasedQueue.js';
import { QueueConsumer } from '../workqueue/QueueConsumer.js';
import type { Worker } from '../workload/Worker.js';
import { strategyContext } from './run.js';
import { fleetParams, type Scenario, type ScenarioParams } from './Scenario.js';

export const S6_FLAPS = 10;
/** the provider is down this long per flap, and up this long between flaps */
export const S6_OUTAGE_MS = 30_000;
export const S6_UP_MS = 150_000;
export const S6_FIRST_OUTAGE_MS = 60_000;
/** the queue's lease: a claimed unit not acked within it is reclaimed */
export const S6_LEASE_MS = 10_000;
export const S6_PREFETCH = 2;
export const S6_POISON_UNITS = 3;
/** units arrive at this fraction of the fleet's demand: the backlog an outage leaves drains between flaps */
export const S6_LOAD = 0.4;
/** the fleet's reconciliation job and its refund poller (the SDK helper's period) */
export const RECONCILE_EVERY_MS = 5000;
export const REFUND_POLL_MS = 2000;

export const S6_PARAMS: ScenarioParams = fleetParams(20, {
  durationMs: S6_FIRST_OUTAGE_MS + S6_FLAPS * (S6_OUTAGE_MS + S6_UP_MS) + 30_000,
  outage: null,
  brokenHosts: 0,
});

export const S6: Scenario = {
  id: 'S6',
  title: 'the breaker flaps 10 times; the queue quarantines work after 5 reclaims',
  mustHold:
    'no healthy work unit is quarantined; a genuinely poison unit still is; no refund is issued twice',
  params: S6_PARAMS,
};

export interface S6Figures {
  healthyQuarantined: number;
  poisonQuarantined: number;
  poisonUnits: number;
  doubleRefunds: number;
  unitsDone: number;
  unitsArrived: number;
  reclaims: number;
  refundedReclaims: number;
  refundedAttempts: number;
  /** highest reclaim count a healthy unit holds at the end */
  maxHealthyReclaims: number;
  /** times the controller's breaker entered OPEN from CLOSED or RAMPING (flaps); null without a controller */
  globalOpens: number | null;
  /** times it recovered to CLOSED */
  globalCloses: number | null;
  series: {
    t: number;
    healthyQuarantined: number;
    poisonQuarantined: number;
    reclaims: number;
    open: number;
  }[];
}

interface S6Strategy {
  name: string;
  base: Strategy;
  refunds: boolean;
}

export const S6_STRATEGIES: S6Strategy[] = [
  { name: 'naive', base: naive, refunds: false },
  { name: 'recloser-no-refunds', base: recloser, refunds: false },
  { name: 'recloser', base: recloser, refunds: true },
];

export async function runS6Strategy(
  params: ScenarioParams,
  s: S6Strategy,
  seed: number,
  onProgress?: (f: number) => void,
): Promise<S6Figures> {
  const sim = new Simulation(seed);
  const provider = new Provider(sim, params.provider);
  const ctx = strategyContext(params, sim, provider, new Recorder());
  const { instances } = ctx;
  const fleet: Fleet = s.base.build(ctx);
  const queue = new LeasedQueue(S6_LEASE_MS, MAX_RANGE_RECLAIMS);
  const consumers = instances.map(
    (inst, i) =>
      new QueueConsumer(
        inst.id,
        inst.region,
        sim,
        provider,
        fleet.gate(i),
        queue,
        S6_PREFETCH,
        params.workload.slowThresholdMs,
      ),
  );
  // the strategies pump what they gate (pump) and read its backlog: a consumer offers both
  fleet.attach(consumers as unknown as Worker[]);
  const { durationMs } = params;

  // units arrive at the fleet's demand; the poison ones among the first
  let arrived = 0;
  const demandPerSec = params.instances * params.workload.demandPerSec * S6_LOAD;
  // one poison unit before the first outage, one in each of the next two cycles
  const perCycle = Math.floor(((S6_OUTAGE_MS + S6_UP_MS) * demandPerSec) / 1000);
  const poisonAt = new Set(Array.from({ length: S6_POISON_UNITS }, (_, k) => 5 + k * perCycle));
  sim.every(1000 / demandPerSec, 0, durationMs - 30_000, () => {
    arrived += 1;
    queue.add(`u-${String(arrived).padStart(6, '0')}`, poisonAt.has(arrived));
    // the queue wakes an idle consumer (a long poll answering), in turn
    for (let k = 0; k < consumers.length && queue.backlog() > 0; k++) {
      const c = consumers[(arrived + k) % consumers.length]!;
      if (c.idle()) c.pump();
    }
  });
  for (let k = 0; k < S6_FLAPS; k++) {
    const start = S6_FIRST_OUTAGE_MS + k * (S6_OUTAGE_MS + S6_UP_MS);
    sim.at(start, () => provider.setOutage(true));
    sim.at(start + S6_OUTAGE_MS, () => provider.setOutage(false));
  }

  // the controller's reconciliation, two runners on one ledger (two replicas' jobs at once)
  const control = fleet.control?.() ?? null;
  const runners: ReconciliationT[] = [];
  if (control) {
    const { settings, memory } = control;
    runners.push(memory.reconciliation);
    runners.push(
      new Reconciliation(
        {
          ledger: memory.ledger,
          history: new MemoryHistory(memory.breakers, memory.presence),
          breakers: memory.breakers,
          events: memory.events,
          clock: sim.clock,
        },
        settings,
      ),
    );
  }
  let cursor: string | null = null;
  sim.every(1000, 250, durationMs, () => {
    // a consumer whose lease ran out has a free slot: it claims again (only those are woken, so
    // the breaker's demand figures count the calls the fleet wants, not the simulator's polling)
    const holders = new Set(queue.expire(sim.now()).map((u) => u.lastHolder));
    for (const c of consumers) if (holders.has(c.id)) c.pump();
    // the fleet reports its queue's events to the ledger (none without a controller)
    const events = queue.outbox.splice(0);
    if (runners[0] && events.length > 0) {
      const ledger: LedgerEvent[] = events.map((e) => ({ ...e, dependency: SIM_DEPENDENCY }));
      sim.track(runners[0].record(SIM_GROUP, ledger));
    }
  });
  if (runners.length > 0) {
    sim.every(RECONCILE_EVERY_MS, 600, durationMs, () => sim.track(Promise.all(runners.map((r) => r.run()))));
    if (s.refunds)
      sim.every(REFUND_POLL_MS, 800, durationMs, () =>
        sim.track(
          (async () => {
            for (let page = 0; page < 100; page++) {
              const got = await runners[0]!.refunds(SIM_GROUP, cursor, 500);
              for (const r of got.refunds) queue.applyRefund(r);
              cursor = got.next;
              if (got.refunds.length < 500) break;
            }
          })(),
        ),
      );
  }

  const series: S6Figures['series'] = [];
  sim.every(1000, 999, durationMs, () => {
    let open = 0;
    for (let i = 0; i < consumers.length; i++) if (fleet.gate(i).isOpen()) open += 1;
    series.push({
      t: sim.now() / 1000,
      healthyQuarantined: queue.quarantined.healthy,
      poisonQuarantined: queue.quarantined.poison,
      reclaims: queue.totalReclaims,
      open,
    });
  });
  for (const c of consumers) sim.at(sim.rng.next() * 1000, () => c.pump());
  fleet.start(durationMs);
  await sim.run(durationMs, onProgress);

  const units = queue.all();
  const healthy = units.filter((u) => !u.poison);
  return {
    healthyQuarantined: healthy.filter((u) => u.state === 'quarantined').length,
    poisonQuarantined: units.filter((u) => u.poison && u.state === 'quarantined').length,
    poisonUnits: units.filter((u) => u.poison).length,
    doubleRefunds: queue.doubleRefunds,
    unitsDone: units.filter((u) => u.state === 'done').length,
    unitsArrived: arrived,
    reclaims: queue.totalReclaims,
    refundedReclaims: queue.refundedReclaims,
    refundedAttempts: queue.refundedAttempts,
    maxHealthyReclaims: Math.max(0, ...healthy.map((u) => u.reclaims)),
    // a flap: the breaker entering OPEN from CLOSED (quorum) or RAMPING (collapse), from the transition log
    globalOpens: control
      ? control.memory.breakers.log.filter(
          (t) => t.to === 'open' && (t.from === 'closed' || t.from === 'ramping'),
        ).length
      : null,
    globalCloses: control ? control.memory.breakers.log.filter((t) => t.to === 'closed').length : null,
    series,
  };
}

export interface S6Result {
  seed: number;
  params: ScenarioParams;
  strategies: Record<string, S6Figures>;
}

export async function runS6(opts: {
  seed: number;
  instances?: number;
  strategies?: string[];
  onProgress?: (label: string, f: number) => void;
}): Promise<S6Result> {
  const params: ScenarioParams =
    opts.instances === undefined
      ? S6_PARAMS
      : fleetParams(opts.instances, {
          durationMs: S6_PARAMS.durationMs,
          outage: null,
          brokenHosts: 0,
        });
  const strategies: Record<string, S6Figures> = {};
  for (const s of S6_STRATEGIES) {
    if (opts.strategies && !opts.strategies.includes(s.name)) continue;
    strategies[s.name] = await runS6Strategy(params, s, opts.seed, (f) =>
      opts.onProgress?.(`S6 ${s.name}`, f),
    );
  }
  return { seed: opts.seed, params, strategies };
}
