// The one place that shapes what an instance is told about a breaker in a heartbeat response.
// The controller and the simulator both call it, so an instance cannot be told one thing by the
// real controller and another by the simulated one.
import { currentLevel, type GlobalBreakerState } from '../global/GlobalBreaker.js';
import type { PoolConfig } from '../pool/PoolConfig.js';
import type {
  BreakerPlan,
  ClassAllowance,
  NextAllowance,
  ProbeGrant,
  QuorumFiguresWire,
  TrafficClass,
} from '../wire.js';

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
  /** issue 13: this instance's share of the next admission window, announced before it moves */
  next?: NextAllowance | null;
  /** the fallback plan (regional shares, probe owners) when that capability supplies one */
  fallback?: BreakerPlan['fallback'];
}

/**
 * - closed: no allowance (unrestricted) and no probe.
 * - open: nothing; the instance pauses.
 * - probing: the probe token if this instance holds one, never an allowance.
 * - ramping: always an allowance, `{}` when this instance is not admitted this period (so "not
 *   admitted" is never mistaken for "unrestricted"); never a probe token. `next` when given (the
 *   window is about to move), its classes shaped the same way.
 */
export function buildPlan(input: PlanInput): BreakerPlan {
  const { global: g } = input;
  const ramping = g.state === 'ramping';
  const classes = ramping && input.allowance ? admitting(input.allowance) : {};
  const next = ramping && input.next ? input.next : null;
  const allowance: BreakerPlan['allowance'] = ramping
    ? { validForMs: Math.max(0, input.validForMs), classes }
    : null;
  if (allowance !== null && next !== null && Number.isFinite(next.inMs) && next.inMs >= 0)
    allowance.next = { inMs: next.inMs, classes: admitting(next.classes) };
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
    allowance,
    probe: g.state === 'probing' && input.probe ? { ...input.probe } : null,
    fallback: input.fallback ?? null,
  };
}

/** The classes that admit something: a zero or broken share is left out rather than sent as a 0-rate bucket. */
function admitting(allowance: Record<TrafficClass, ClassAllowance>): Record<TrafficClass, ClassAllowance> {
  const classes: Record<TrafficClass, ClassAllowance> = {};
  for (const [cls, a] of Object.entries(allowance)) {
    if (a.ratePerSec > 0 && a.concurrency >= 1 && a.burst >= 1) classes[cls] = { ...a };
  }
  return classes;
}
