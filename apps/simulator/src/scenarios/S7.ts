// S7: the same work (500 requests/s against the same provider) spread over 10, 100, 1,000 and
// 5,000 instances, so the only thing that changes is the fleet size.
import { DEFAULT_PROVIDER } from '../provider/Provider.js';
import { DEFAULT_WORKLOAD, type WorkloadOptions } from '../workload/Worker.js';
import { providerFor, type Scenario, type ScenarioParams } from './Scenario.js';

/** requests/s the whole fleet wants, whatever its size */
export const S7_FLEET_DEMAND = 500;

/** An instance's share of the fixed fleet demand; its in-flight limit and backlog scale with it. */
export function s7Workload(instances: number): WorkloadOptions {
  const demandPerSec = S7_FLEET_DEMAND / instances;
  return {
    ...DEFAULT_WORKLOAD,
    demandPerSec,
    maxInflight: Math.max(DEFAULT_WORKLOAD.maxInflight, Math.ceil(demandPerSec)),
    maxBacklog: Math.max(2, Math.ceil(demandPerSec * 120)),
  };
}

export function s7Params(instances: number): ScenarioParams {
  return {
    instances,
    regions: ['eu-west', 'us-east', 'ap-south'],
    durationMs: 300_000,
    outage: { startMs: 10_000, durationMs: 60_000, recoveredFraction: 1 },
    brokenHosts: 0,
    provider: providerFor(S7_FLEET_DEMAND, 1, DEFAULT_PROVIDER),
    workload: s7Workload(instances),
  };
}

export const S7: Scenario = {
  id: 'S7',
  title: 'fleet sizes 10, 100, 1,000 and 5,000 sharing the same work and provider',
  mustHold: 'recovery peak attempts/s is flat across sizes (set by the provider budget, not the fleet)',
  params: s7Params(1000),
  fleetSizes: [10, 100, 1000, 5000],
  paramsAt: s7Params,
};
