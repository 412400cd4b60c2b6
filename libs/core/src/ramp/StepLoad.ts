// Whether a ramp step still limits the fleet. "Recovered" means the admitted load reached a
// sustainable level, not that the ramp ran out of steps: while the fleet wants more than the last
// step allows (a backlog queued during the outage, or demand above capacity), lifting every limit
// at once would send all of it to the provider in one wave. So the last step closes the breaker
// only when it is not binding; otherwise the ramp stays there, settled and still throttled.
import type { PoolConfig } from '../pool/PoolConfig.js';
import type { TrafficClass } from '../wire.js';
import { stepBudget, type RampPosition } from './Allowance.js';

/** A class's reported demand (req/s, summed over the live fleet) against the step's rate. */
export interface ClassLoad {
  demand: number;
  budget: number;
}

export interface StepLoad {
  /** the classes admitted at the step; classes not yet admitted are not judged */
  classes: Record<TrafficClass, ClassLoad>;
  /** some admitted class wants more than the step's rate */
  binding: boolean;
}

/** Σ of the reported demand per class (req/s); non-positive or non-finite figures count as 0. */
export function fleetDemand(
  rows: readonly { demand: Record<TrafficClass, number> }[],
): Record<TrafficClass, number> {
  const out: Record<TrafficClass, number> = {};
  for (const row of rows) {
    for (const [cls, v] of Object.entries(row.demand)) {
      if (Number.isFinite(v) && v > 0) out[cls] = (out[cls] ?? 0) + v;
    }
  }
  return out;
}

/** A reported demand with only its finite, positive figures (what fleetDemand counts), as a new object. */
export function positiveDemand(
  raw: Readonly<Record<TrafficClass, unknown>> | undefined,
): Record<TrafficClass, number> {
  const out: Record<TrafficClass, number> = {};
  for (const [cls, v] of Object.entries(raw ?? {}))
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[cls] = v;
  return out;
}

/** One instance's demand over all classes (requests/s), counted as fleetDemand counts it: a prober's weight. */
export function instanceDemand(demand: Record<TrafficClass, number>): number {
  return Object.values(fleetDemand([{ demand }])).reduce((s, v) => s + v, 0);
}

/** The fleet's demand against the budget of `step`, class by class. */
export function stepLoad(
  pool: PoolConfig,
  step: RampPosition,
  demand: Record<TrafficClass, number>,
): StepLoad {
  const classes: Record<TrafficClass, ClassLoad> = {};
  let binding = false;
  for (const [cls, budget] of Object.entries(stepBudget(pool, step))) {
    const wanted = demand[cls];
    const d = wanted !== undefined && Number.isFinite(wanted) && wanted > 0 ? wanted : 0;
    classes[cls] = { demand: d, budget: budget.ratePerSec };
    if (d > budget.ratePerSec) binding = true;
  }
  return { classes, binding };
}

/** "standard 812/s of 500/s" — for transition reasons. */
export function describeLoad(load: StepLoad): string {
  const parts = Object.entries(load.classes).map(
    ([cls, l]) => `${cls} ${round(l.demand)}/s of ${round(l.budget)}/s`,
  );
  return parts.length === 0 ? 'no admitted class' : parts.join(', ');
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
