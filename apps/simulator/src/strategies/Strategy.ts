// A strategy is what every instance of a fleet runs in front of the provider. The scenario builds
// the fleet, the provider and the workload; the strategy supplies the gates and anything that
// coordinates them (for recloser, the SDK instances and an in-memory controller).
import type { MemoryControl } from '@recloser/control';
import type { GlobalState, PoolConfig } from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { Recorder } from '../metrics/Recorder.js';
import type { RegionalFigures } from '../regions/RegionalFigures.js';
import type { Provider } from '../provider/Provider.js';
import type { CallGate } from '../workload/CallGate.js';
import type { Worker, WorkloadOptions } from '../workload/Worker.js';
import type { PoolSettings } from '../scenarios/poolSettings.js';

export interface InstanceSpec {
  id: string;
  region: string;
}

export interface StrategyContext {
  sim: Simulation;
  provider: Provider;
  recorder: Recorder;
  instances: InstanceSpec[];
  workload: WorkloadOptions;
  /** requests/s the provider serves at full health, summed over its pools (sizes recloser's pool) */
  providerRatePerSec: number;
  /** calls the provider sustains in flight at that rate (Little's law, not its slot count) */
  providerConcurrency: number;
  /** the scenario loses the controller mid-ramp (S5) */
  controllerLoss?: { afterRampMs: number; durationMs: number };
  /** the operator's probe and ramp settings over the pool a recloser strategy sizes to the provider */
  pool?: PoolSettings;
}

export interface Fleet {
  gate(index: number): CallGate;
  /** called once the workers exist, before the run */
  attach(workers: Worker[]): void;
  /** schedules the strategy's own periodic work (tickers, controller jobs) until untilMs */
  start(untilMs: number): void;
  /** the controller's view, null for strategies without one */
  globalState(): GlobalState | null;
  /** the controller's ramp step, null when not ramping or without a controller */
  globalStep?(): number | null;
  /** the controller's admitted ramp level (fraction of the pool's capacity), null when not ramping */
  globalLevel?(): number | null;
  /** the pool the controller budgets with (recloser), for the invariants */
  pool?(): PoolConfig;
  /** instances the controller reported isolated (open while the group is closed) during the run */
  isolated?(): string[];
  /** the controller's control layer on memory ports and its timings (recloser): S6 reconciles through it */
  control?(): { memory: MemoryControl; settings: { heartbeatIntervalMs: number; heartbeatTtlMs: number } };
  /** regional strategies (S4, S8): opens per scope, shift velocity, probe tokens in flight */
  regionalFigures?(): RegionalFigures;
  /** figures only this strategy measures, added to its summary (recloser-no-controller's fallback figures) */
  extraFigures?(summary: (fromMs: number) => StrategyFiguresLike): Record<string, unknown>;
}

/** the summary's figures recomputed as if the outage had ended at `fromMs` (timeToRecoveredMs from there) */
export interface StrategyFiguresLike {
  timeToRecoveredMs: number | null;
}

export interface Strategy {
  name: string;
  /** what is missing before this strategy can run; absent when it runs */
  needs?: string;
  /** what a scenario must have for this strategy to apply (recloser-no-controller: a controller loss) */
  needsIn?(ctx: Pick<StrategyContext, 'controllerLoss'>): string | undefined;
  build(ctx: StrategyContext): Fleet;
}
