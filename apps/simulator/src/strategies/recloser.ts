// recloser: every instance runs the real SDK (libs/client) on the simulated clock, talking to an
// in-memory controller that composes the real core decisions. Nothing of the policy lives here:
// this file only wires the SDK's allow()/record() to the workload and drives the tickers.
import {
  createRecloser,
  type Breaker,
  type BreakerState,
  type Recloser,
  type Transport,
} from '@recloser/client';
import {
  currentLevel,
  DEFAULT_POOL,
  DEFAULT_QUORUM,
  seededRng,
  type Outcome,
  type PoolConfig,
} from '@recloser/core';
import { LIFECYCLE_TICK_MS } from '@recloser/control';
import { InMemoryController } from '../controller/InMemoryController.js';
import { withPoolSettings } from '../scenarios/poolSettings.js';
import type { Simulation } from '../engine/Simulation.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Worker } from '../workload/Worker.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

export const SIM_GROUP = 'sim-fleet';
export const SIM_DEPENDENCY = 'llm-provider';
export const HEARTBEAT_INTERVAL_MS = 1000;
export const HEARTBEAT_TTL_MS = 5000;
export const ISOLATION_AFTER_MS = 30_000;

/** The pool an operator would configure for this provider: the defaults (or the run's settings), sized to its capacity. */
export function poolFor(
  ctx: Pick<StrategyContext, 'providerRatePerSec' | 'providerConcurrency' | 'pool'>,
  trafficClass: string,
): PoolConfig {
  const pool = DEFAULT_POOL('sim-pool', SIM_DEPENDENCY);
  pool.capacity = {
    [trafficClass]: { ratePerSec: ctx.providerRatePerSec, concurrency: ctx.providerConcurrency },
  };
  pool.ramp = { ...pool.ramp, classOrder: [trafficClass] };
  return withPoolSettings(pool, ctx.pool);
}

/** The SDK breaker seen as the workload's gate (the regional strategies wrap it for their home region). */
export class SdkGate implements CallGate {
  constructor(
    private readonly sim: Simulation,
    private readonly breaker: Breaker,
    private readonly trafficClass: string,
    private readonly onAdmit?: () => void,
  ) {}

  acquire(): GateKind | null {
    if (!this.breaker.allow(this.trafficClass)) return null;
    this.onAdmit?.();
    // admitted while the group is down = the probe token's call; a local trial = a self-probe
    const state = this.breaker.state;
    return state === 'paused' || state === 'self_probe' ? 'probe' : 'call';
  }

  complete(_kind: GateKind, outcome: Outcome, latencyMs: number, retryAfterMs: number | undefined): void {
    this.breaker.record(
      outcome,
      retryAfterMs === undefined
        ? { latencyMs, trafficClass: this.trafficClass }
        : { latencyMs, retryAfterMs, trafficClass: this.trafficClass },
    );
  }

  wakeAt(): number | null {
    const state = this.breaker.state;
    // paused or not admitted: the next plan decides, and the ticker pumps the worker after it
    if (state === 'paused' || state === 'fallback') return null;
    const refusal = this.breaker.refusal(this.trafficClass);
    if (refusal.reason === 'concurrency' || refusal.reason === 'not_admitted' || refusal.reason === 'paused')
      return null;
    return this.sim.now() + Math.max(1, refusal.retryAfterMs);
  }

  isOpen(): boolean {
    const s: BreakerState = this.breaker.state;
    return s === 'local_open' || s === 'self_probe' || s === 'paused';
  }
}

/** SDK states as the recorder counts them: local_open is an open breaker, admitted traffic is closed. */
function norm(s: BreakerState): string {
  return s === 'local_open' ? 'open' : s === 'admitted' ? 'closed' : s;
}

/** What a variant of the recloser fleet changes (recloser-no-controller: a controller that goes away). */
export interface RecloserFleetHooks {
  /** what the SDKs talk to (default: the controller itself) */
  transport?: (controller: InMemoryController) => Transport;
  /** while true, the controller's periodic jobs do not run (its process is gone) */
  controllerDown?: () => boolean;
  /** each instance's SDK and breaker, once made */
  onInstance?: (index: number, sdk: Recloser, breaker: Breaker) => void;
  /** each call the instance's gate lets out */
  onAdmit?: (index: number) => void;
}

export const recloser: Strategy & { build(ctx: StrategyContext, hooks?: RecloserFleetHooks): Fleet } = {
  name: 'recloser',
  build(ctx: StrategyContext, hooks: RecloserFleetHooks = {}): Fleet {
    const { sim, recorder } = ctx;
    const trafficClass = ctx.workload.trafficClass;
    const controller = new InMemoryController(sim.clock, seededRng(Math.floor(sim.rng.next() * 2 ** 31)), {
      group: SIM_GROUP,
      dependency: SIM_DEPENDENCY,
      pool: poolFor(ctx, trafficClass),
      quorum: DEFAULT_QUORUM,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      heartbeatTtlMs: HEARTBEAT_TTL_MS,
      isolationAfterMs: ISOLATION_AFTER_MS,
    });
    controller.onTransition = (t) => recorder.transition({ ...t, who: 'global' });
    const transport = hooks.transport?.(controller) ?? controller;
    const sdks: Recloser[] = [];
    const gates: SdkGate[] = [];
    let workers: Worker[] = [];
    ctx.instances.forEach((inst, i) => {
      const sdk = createRecloser({
        instanceId: inst.id,
        group: SIM_GROUP,
        region: inst.region,
        heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
        clock: sim.clock,
        rng: seededRng(Math.floor(sim.rng.next() * 2 ** 31)),
        transport,
        autoStart: false,
      });
      // the SDK's default local breaker, as an application would leave it; the worker's queue is
      // reported as backlog, so the controller sees the work waiting, not just the calls asked for
      const breaker = sdk.breaker(SIM_DEPENDENCY, {
        defaultClass: trafficClass,
        slowThresholdMs: ctx.workload.slowThresholdMs,
        backlog: () => workers[i]?.backlog() ?? 0,
      });
      breaker.onStateChange((e) =>
        recorder.transition({ at: sim.now(), who: inst.id, from: norm(e.from), to: norm(e.to) }),
      );
      sdks.push(sdk);
      const onAdmit = hooks.onAdmit;
      gates.push(new SdkGate(sim, breaker, trafficClass, onAdmit ? () => onAdmit(i) : undefined));
      hooks.onInstance?.(i, sdk, breaker);
    });
    return {
      gate: (i) => gates[i]!,
      attach: (w) => {
        workers = w;
      },
      start: (untilMs) => {
        // the controller's lifecycle job at its production cadence; each instance's ticker at its own phase
        sim.every(LIFECYCLE_TICK_MS, LIFECYCLE_TICK_MS / 2, untilMs, () => {
          if (!hooks.controllerDown?.()) sim.track(controller.tick());
        });
        sdks.forEach((sdk, i) => {
          const worker = workers[i]!;
          sim.every(HEARTBEAT_INTERVAL_MS, sim.rng.next() * HEARTBEAT_INTERVAL_MS, untilMs, () =>
            sim.track(sdk.tick().then(() => worker.pump())),
          );
        });
      },
      globalState: () => controller.global.state,
      globalStep: () => (controller.global.state === 'ramping' ? controller.global.step : null),
      globalLevel: () => currentLevel(controller.global, controller.options.pool),
      pool: () => controller.options.pool,
      isolated: () => controller.isolated(),
      control: () => ({
        memory: controller.control,
        settings: { heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS, heartbeatTtlMs: HEARTBEAT_TTL_MS },
      }),
    };
  },
};
