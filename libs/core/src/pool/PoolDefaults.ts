// The pool a dependency gets when nobody configured one, and how a partial PUT body lands on it.
// Values follow the docs/api.md example, scaled to one modest standard class.
import type { FailureDomain } from '../domain/FailureDomain.js';
import type { TrafficClass } from '../wire.js';
import type {
  ClassCapacity,
  FallbackConfig,
  GateThresholds,
  PoolConfig,
  ProbeBudget,
  RampConfig,
} from './PoolConfig.js';
import { defaultPoolId } from './PoolId.js';

/** A pool without its id: what PUT /v1/admin/pools/{id} carries and validation returns. */
export type PoolBody = Omit<PoolConfig, 'id'>;

/** A partial PUT body: every section optional, each section's fields optional. */
export interface PoolInput {
  dependencies?: string[];
  groups?: string[];
  probe?: Partial<ProbeBudget>;
  /** replaces the class map as a whole (a class listed must give both figures) */
  capacity?: Record<TrafficClass, ClassCapacity>;
  ramp?: Partial<Omit<RampConfig, 'gates'>> & { gates?: Partial<GateThresholds> };
  fallback?: Partial<FallbackConfig>;
  failureDomain?: FailureDomain;
}

export const DEFAULT_PROBE_BUDGET: ProbeBudget = {
  concurrency: 1,
  ratePerSec: 1,
  leaseTtlMs: 5000,
  cooldownMs: 5000,
  intervalMs: 1000,
  probesToPass: 2,
  leases: 'designated',
};

export const DEFAULT_GATES: GateThresholds = {
  minSuccessRate: 0.95,
  maxLatencyP95Ms: 2000,
  maxTtftP95Ms: 1500,
  maxQueueAgeMs: 5000,
  max429Rate: 0.02,
};

export const DEFAULT_RAMP: RampConfig = {
  // the start: 3 % (not 1 %) saves a growth step in every recovery (S1: +1.5 points of goodput)
  // and still admits under a third of what a provider back at 10 % serves
  steps: [0.03, 1.0],
  // two heartbeats: an instance learns a level at its next heartbeat and reports a window after it
  dwellMs: 2000,
  // the smallest sample judged; a level too small to gather it in the floor dwells longer
  minSample: 10,
  growth: 4,
  probeGrowth: 1.1,
  headroom: 0.02,
  latencyInflation: 3,
  // learned from what a ramp sees unless the pool says so (ramp/Shedding.ts)
  shedsCleanly: false,
  classOrder: ['standard'],
  gates: DEFAULT_GATES,
};

export const DEFAULT_CAPACITY: Record<TrafficClass, ClassCapacity> = {
  standard: { ratePerSec: 100, concurrency: 50 },
};

export const DEFAULT_FALLBACK: FallbackConfig = { ratePerSec: 0.2, ownersPerRegion: 2 };

/** Fresh copy of the default body (callers may mutate what they get). */
export function defaultPoolBody(dependencies: string[] = []): PoolBody {
  return {
    dependencies: [...dependencies],
    probe: { ...DEFAULT_PROBE_BUDGET },
    capacity: Object.fromEntries(Object.entries(DEFAULT_CAPACITY).map(([k, v]) => [k, { ...v }])),
    ramp: {
      ...DEFAULT_RAMP,
      steps: [...DEFAULT_RAMP.steps],
      classOrder: [...DEFAULT_RAMP.classOrder],
      gates: { ...DEFAULT_GATES },
    },
    fallback: { ...DEFAULT_FALLBACK },
  };
}

/** The pool a dependency with no configured pool draws on. */
export function DEFAULT_POOL(id: string, dependency: string): PoolConfig {
  return { id, ...defaultPoolBody([dependency]) };
}

/**
 * Merges a partial body over `base` (the defaults unless given): sections merge field by field,
 * `capacity` replaces the class map, and a body that gives `capacity` without `ramp.classOrder`
 * admits its classes in the order it lists them. Does not validate: see PoolValidation.ts.
 */
export function mergePool(partial: PoolInput, base: PoolBody = defaultPoolBody()): PoolBody {
  const capacity = partial.capacity ?? base.capacity;
  const classOrder =
    partial.ramp?.classOrder ?? (partial.capacity ? Object.keys(partial.capacity) : base.ramp.classOrder);
  const fallback: FallbackConfig = { ...base.fallback, ...partial.fallback };
  const groups = partial.groups ?? base.groups;
  const failureDomain = partial.failureDomain ?? base.failureDomain;
  return {
    dependencies: [...(partial.dependencies ?? base.dependencies)],
    ...(groups ? { groups: [...groups] } : {}),
    probe: { ...base.probe, ...partial.probe },
    capacity: Object.fromEntries(Object.entries(capacity).map(([k, v]) => [k, { ...v }])),
    ramp: {
      ...base.ramp,
      ...partial.ramp,
      steps: [...(partial.ramp?.steps ?? base.ramp.steps)],
      classOrder: [...classOrder],
      gates: { ...base.ramp.gates, ...partial.ramp?.gates },
    },
    fallback,
    ...(failureDomain ? { failureDomain } : {}),
  };
}

/**
 * The pool a group's breaker of `dependency` draws on: the configured pool when it is bound to no
 * groups or to this one, else the dependency's own default pool (a bound pool's budget is only
 * for the groups an operator named).
 */
export function poolForGroup(
  configured: PoolConfig | null,
  dependency: string,
  group: string | undefined,
): PoolConfig {
  if (configured && (!configured.groups || group === undefined || configured.groups.includes(group)))
    return configured;
  return DEFAULT_POOL(defaultPoolId(dependency), dependency);
}
