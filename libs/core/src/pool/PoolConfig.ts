// A provider capacity pool (PUT /v1/admin/pools/{id}): the recovery budget is sized to the
// provider, never to the fleet. Types only; defaults and validation live beside this file.
import type { TrafficClass } from '../wire.js';

export interface ProbeBudget {
  /** live (unexpired) probe tokens at most, across all replicas */
  concurrency: number;
  /** grants per second at most */
  ratePerSec: number;
  leaseTtlMs: number;
  /** base cooldown OPEN -> PROBING; grows exponentially with each failed recovery */
  cooldownMs: number;
  /** probes that must pass the gates before PROBING -> RAMPING(step 0) */
  probesToPass: number;
  /**
   * Who may be granted a token asked for on POST /v1/probes/lease: `designated`, the instances
   * core designateProbers picks (as heartbeat plans do), or `live`, any live instance of the group.
   */
  leases: ProbeLeasePolicy;
}

export const PROBE_LEASE_POLICIES = ['designated', 'live'] as const;
export type ProbeLeasePolicy = (typeof PROBE_LEASE_POLICIES)[number];

export interface ClassCapacity {
  ratePerSec: number;
  concurrency: number;
}

export interface GateThresholds {
  minSuccessRate: number;
  maxLatencyP95Ms: number;
  maxTtftP95Ms: number;
  maxQueueAgeMs: number;
  max429Rate: number;
}

export interface RampConfig {
  /** ascending fractions of each class's capacity, each in (0, 1]; the last is normally 1 */
  steps: number[];
  dwellMs: number;
  /** attempts a step needs (besides its dwell) before its gates are judged */
  minSample: number;
  /** classes admitted in this order: class k joins the ramp at step k */
  classOrder: TrafficClass[];
  gates: GateThresholds;
}

export interface FallbackConfig {
  ratePerSec: number;
  ownersPerRegion: number;
  regionWeights?: Record<string, number>;
}

export interface PoolConfig {
  id: string;
  dependencies: string[];
  /**
   * The groups whose breakers may draw on this pool (an operator's binding); absent: every group.
   * A group outside it draws on the dependency's own default pool instead (poolForGroup).
   */
  groups?: string[];
  probe: ProbeBudget;
  capacity: Record<TrafficClass, ClassCapacity>;
  ramp: RampConfig;
  fallback: FallbackConfig;
}
