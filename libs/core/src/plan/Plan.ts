// The one place that shapes what an instance is told about a breaker in a heartbeat response.
// The controller and the simulator both call it, so an instance cannot be told one thing by the
// real controller and another by the simulated one.
import { currentLevel, type GlobalBreakerState } from '../global/GlobalBreaker.js';
import type { PoolConfig } from '../pool/PoolConfig.js';
import type { BreakerPlan, ClassAllowance, ProbeGrant, QuorumFiguresWire, TrafficClass } from '../wire.js';

export interface PlanInput {
  breakerId: string;
  dependency: string;
  global: Pick<GlobalBreakerState, 'state' | 'epoch' | 'step'> & Partial<Pick<GlobalBreakerState, 'level'>>;
  quorum: QuorumFiguresWire;
  pool: Pick<PoolConfig, 'ramp'>;
  /** this instance's share of the current step (divideAllowances(...).get(instanceId)), or null */
  allowance: Record<TrafficClass, ClassAllowance> | null;
  /** a probe token granted to (or still held by) this instance, or null */
  probe: ProbeGrant | null;
  /** how long the allowance holds if no newer plan arrives */
  validForMs: number;
  /** the fallback plan (regional shares, probe owners) when that capability supplies one */
  fallback?: BreakerPlan['fallback'];
}

/**
 * - closed: no allowance (unrestricted) and no probe.
 * - open: nothing; the instance pauses.
 * - probing: the probe token if this instance holds one, never an allowance.
 * - ramping: always an allowance, `{}` when this instance is not admitted this period (so "not
 *   admitted" is never mistaken for "unrestricted"); never a probe token.
 */
export function buildPlan(input: PlanInput): BreakerPlan {
  const { global: g } = input;
  const ramping = g.state === 'ramping';
  const classes: Record<TrafficClass, ClassAllowance> = {};
  if (ramping && input.allowance) {
    for (const [cls, a] of Object.entries(input.allowance)) {
      // a zero or broken share admits nothing: leave the class out rather than send a 0-rate bucket
      if (a.ratePerSec > 0 && a.concurrency >= 1 && a.burst >= 1) classes[cls] = { ...a };
    }
  }
  return {
    dependency: input.dependency,
    breakerId: input.breakerId,
    global: {
      state: g.state,
      epoch: g.epoch,
      step: ramping ? g.step : null,
      steps: input.pool.ramp.steps.length,
      level: currentLevel({ state: g.state, level: g.level ?? null }, input.pool),
      quorum: { open: input.quorum.open, live: input.quorum.live, threshold: input.quorum.threshold },
    },
    allowance: ramping ? { validForMs: Math.max(0, input.validForMs), classes } : null,
    probe: g.state === 'probing' && input.probe ? { ...input.probe } : null,
    fallback: input.fallback ?? null,
  };
}
