// A scenario states its parameters; the runner builds the same fleet and provider for every
// strategy from them, with the same seed, so the columns of a table differ only by strategy.
import { DEFAULT_PROVIDER, type ProviderModel, type ProviderOptions } from '../provider/Provider.js';
import type { Strategy } from '../strategies/Strategy.js';
import { DEFAULT_WORKLOAD, type WorkloadOptions } from '../workload/Worker.js';
import type { PoolSettings } from './poolSettings.js';

export interface OutageSpec {
  startMs: number;
  durationMs: number;
  /** capacity the provider comes back with, 1 = full */
  recoveredFraction: number;
}

/** One region's network path to the provider fails for a while (S4, S8). */
export interface RegionFault {
  region: string;
  startMs: number;
  durationMs: number;
}

/** The controller lost (unreachable, its jobs stopped) in the middle of the first ramp, then restarted. */
export interface ControllerLossSpec {
  /** how long after the breaker first starts RAMPING the controller goes away */
  afterRampMs: number;
  durationMs: number;
}

export interface ScenarioParams {
  instances: number;
  regions: string[];
  durationMs: number;
  outage: OutageSpec | null;
  /** instances whose host is broken: every call fails inside the instance */
  brokenHosts: number;
  provider: ProviderOptions;
  workload: WorkloadOptions;
  /** region-scoped network faults (the provider's other regions are untouched) */
  regionFaults?: RegionFault[];
  /** S5: the controller dies mid-ramp (strategies that have one and model the loss) */
  controllerLoss?: ControllerLossSpec;
  /** the operator's probe and ramp settings over the recloser strategies' pool (else the defaults) */
  pool?: PoolSettings;
}

export interface Scenario {
  id: string;
  title: string;
  /** what must hold for recloser (SCENARIOS.md) */
  mustHold: string;
  /** set when a capability the scenario needs is not built yet: it is listed, never faked */
  needs?: string;
  params: ScenarioParams;
  /** S7 runs the same scenario at several fleet sizes */
  fleetSizes?: number[];
  /** how the scenario is rebuilt at another fleet size; without it the provider is scaled with the fleet */
  paramsAt?: (instances: number) => ScenarioParams;
  /** the strategies this scenario runs and may be named, when not the common list (S4, S8: regional
   * strategies; S5: recloser with and without its controller) */
  strategies?: Strategy[];
}

/** The provider serves this many requests/s per instance of demand at full health (headroom). */
export const HEADROOM = 1.2;

/** A provider sized to a fleet: capacity for its steady demand with 20 % headroom. */
export function providerFor(instances: number, demandPerSec: number, base: ProviderOptions): ProviderOptions {
  const ratePerSec = Math.max(10, Math.round(instances * demandPerSec * HEADROOM));
  return {
    ...base,
    ratePerSec,
    concurrency: Math.max(2, Math.round(ratePerSec * 0.2)),
    maxQueue: Math.max(4, Math.round(ratePerSec * 0.5)),
  };
}

/** The fleet every scenario shares (three regions, default workload, provider sized to the fleet); a scenario states what differs. */
export function fleetParams(
  instances: number,
  differs: Pick<ScenarioParams, 'durationMs' | 'outage' | 'brokenHosts'>,
  model: ProviderModel = 'simple',
): ScenarioParams {
  return {
    instances,
    regions: ['eu-west', 'us-east', 'ap-south'],
    ...differs,
    provider: { ...providerFor(instances, DEFAULT_WORKLOAD.demandPerSec, DEFAULT_PROVIDER), model },
    workload: DEFAULT_WORKLOAD,
  };
}

/** "collapse provider, 45 s outage, back at 20 %": what a run's overrides made of the scenario. */
export function runLabel(params: ScenarioParams): string {
  const model = `${params.provider.model ?? 'simple'} provider`;
  const o = params.outage;
  if (!o) return model;
  const back = Math.round(o.recoveredFraction * 1000) / 10;
  const pool = params.pool ? `, pool ${JSON.stringify(params.pool)}` : '';
  return `${model}, ${o.durationMs / 1000} s outage, back at ${back} %${pool}`;
}
