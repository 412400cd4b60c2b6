// A provider capacity pool (PUT /v1/admin/pools/{id}): the recovery budget is sized to the
// provider, never to the fleet. Types only; defaults and validation live beside this file.
import type { FailureDomain } from '../domain/FailureDomain.js';
import type { TrafficClass } from '../wire.js';

export interface ProbeBudget {
  /** live (unexpired) probe tokens at most, across all replicas */
  concurrency: number;
  /** grants per second at most */
  ratePerSec: number;
  leaseTtlMs: number;
  /**
   * cooldown from a quorum's OPEN to the first probe; doubled for each ramp that collapsed since
   * the breaker last closed (a probe that found the provider still down does not double it)
   */
  cooldownMs: number;
  /**
   * while OPEN, the next probe after one that failed comes this long later (drawn from [½, 1½]×,
   * never sooner than the probe rate allows): short, because a failed probe costs one call
   */
  intervalMs: number;
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
  /**
   * ascending fractions of each class's capacity, each in (0, 1]: a ramp starts at the first and
   * admits at most the last; the levels between are found (growth, bisection), not read from here
   */
  steps: number[];
  /** the shortest time a level is held before it is judged (the floor of the dwell) */
  dwellMs: number;
  /** attempts a level needs before its gates are judged: the dwell ends when it has them */
  minSample: number;
  /**
   * a level that held is followed by one up to `growth` times higher while below the level the
   * breaker last sustained; the growth shrinks (to a tenth of it) as latency inflates toward
   * `latencyInflation` × the lowest seen in this recovery
   */
  growth: number;
  /**
   * the growth just above the level the breaker last sustained (and when retrying above a limit
   * found), accelerating with level / learned level as levels keep holding, up to `growth`
   */
  probeGrowth: number;
  /** settle at most (1 − headroom) × the lowest level that failed in this recovery */
  headroom: number;
  /**
   * p95 latency over the lowest of this recovery at which the growth is at its smallest and beyond
   * which a level counts as degraded (the provider queues: past its capacity before calls fail);
   * a large value turns the latency signal off
   */
  latencyInflation: number;
  /**
   * the operator's word that the provider sheds cleanly: past its capacity it answers quick errors
   * (a 429 or 503 from its own admission control, as LLM APIs do) and keeps serving at capacity. The
   * ramp then judges it so from the first recovery (errors first, latency only far above the lowest:
   * ramp/Shedding.ts) instead of learning it from an overshoot. A collapse refutes it for the breaker
   * that saw it, which from then on learns as if nothing had been declared. Default false.
   */
  shedsCleanly: boolean;
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
  /**
   * The widest an infrastructure fault of this dependency is expected to be (domain/FailureDomain):
   * `provider` (one global quota: every fault is the group's), `region`, `endpoint`, `model` or
   * `credential`. Absent: `provider`, as before failure domains existed.
   */
  failureDomain?: FailureDomain;
}
