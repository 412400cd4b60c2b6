// The health gates a ramp step (and a probe) must hold: success rate, p95 latency, p95 TTFT,
// queue age and the 429 rate. 429s are saturation, not death: they are judged by their own gate
// and left out of the success rate, so a provider that sheds load makes the ramp step back
// instead of reopening the breaker.
import type { GateThresholds } from '../pool/PoolConfig.js';
import type { Outcome } from '../wire.js';

/** What the fleet observed on admitted traffic during one ramp step (summed over instances). */
export interface RampSample {
  attempts: number;
  successes: number;
  rateLimited: number;
  /** calls that timed out or never reached the provider; absent = not counted (ramp/Shedding.ts learns nothing then) */
  timedOut?: number;
  latencyP95Ms: number | null;
  ttftP95Ms: number | null;
  queueAgeMs: number | null;
}

export type GateOutcome = 'pass' | 'degrade' | 'collapse' | 'insufficient';
/** latencyInflation: judged by the ramp only, p95 over the recovery's lowest (RampLevel.ts) */
export type GateName = 'successRate' | 'latencyP95' | 'ttftP95' | 'queueAge' | 'rate429' | 'latencyInflation';

/** The figures behind a gate outcome, recorded in the transition log. */
export interface GateFigures {
  outcome: GateOutcome;
  attempts: number;
  minSample: number;
  /** successes over attempts that were not 429 (1 when every attempt was a 429) */
  successRate: number;
  rate429: number;
  latencyP95Ms: number | null;
  ttftP95Ms: number | null;
  queueAgeMs: number | null;
  /** the gates that did not hold */
  failed: GateName[];
}

export function emptySample(): RampSample {
  return {
    attempts: 0,
    successes: 0,
    rateLimited: 0,
    timedOut: 0,
    latencyP95Ms: null,
    ttftP95Ms: null,
    queueAgeMs: null,
  };
}

/** The gates a sample's figures do not hold (also what a receipt verifier re-derives from the log). */
export function failedGates(
  f: Pick<GateFigures, 'successRate' | 'rate429' | 'latencyP95Ms' | 'ttftP95Ms' | 'queueAgeMs'>,
  gates: GateThresholds,
): GateName[] {
  const failed: GateName[] = [];
  if (f.successRate < gates.minSuccessRate) failed.push('successRate');
  if (f.latencyP95Ms !== null && f.latencyP95Ms > gates.maxLatencyP95Ms) failed.push('latencyP95');
  if (f.ttftP95Ms !== null && f.ttftP95Ms > gates.maxTtftP95Ms) failed.push('ttftP95');
  if (f.queueAgeMs !== null && f.queueAgeMs > gates.maxQueueAgeMs) failed.push('queueAge');
  if (f.rate429 > gates.max429Rate) failed.push('rate429');
  return failed;
}

/** A success rate below half the gate is a collapse (given a full sample of answered calls). */
export function collapsedSuccessRate(
  successRate: number,
  gates: Pick<GateThresholds, 'minSuccessRate'>,
): boolean {
  return successRate < gates.minSuccessRate / 2;
}

/**
 * A sample's calls the provider answered (its attempts but the 429s, which say it is rate limiting,
 * not failing) and how many of those did not succeed.
 */
export function answeredCalls(sample: Pick<RampSample, 'attempts' | 'successes' | 'rateLimited'>): {
  attempts: number;
  rateLimited: number;
  answered: number;
  failures: number;
} {
  const attempts = Math.max(0, sample.attempts);
  const rateLimited = Math.min(Math.max(0, sample.rateLimited), attempts);
  const answered = attempts - rateLimited;
  const failures = Math.max(0, answered - Math.max(0, sample.successes));
  return { attempts, rateLimited, answered, failures };
}

/** Judges a sample against the gates and says why. */
export function explainGates(sample: RampSample, gates: GateThresholds, minSample: number): GateFigures {
  const { attempts, rateLimited, answered } = answeredCalls(sample);
  const successRate = answered > 0 ? Math.min(1, Math.max(0, sample.successes) / answered) : 1;
  const rate429 = attempts > 0 ? rateLimited / attempts : 0;
  const failed = failedGates({ ...sample, successRate, rate429 }, gates);

  let outcome: GateOutcome;
  if (attempts < minSample) outcome = 'insufficient';
  // collapse needs a full sample of answered calls: a few failures among many 429s is saturation
  else if (answered >= minSample && collapsedSuccessRate(successRate, gates)) outcome = 'collapse';
  else outcome = failed.length === 0 ? 'pass' : 'degrade';
  return {
    outcome,
    attempts,
    minSample,
    successRate,
    rate429,
    latencyP95Ms: sample.latencyP95Ms,
    ttftP95Ms: sample.ttftP95Ms,
    queueAgeMs: sample.queueAgeMs,
    failed,
  };
}

/** pass / degrade / collapse, or insufficient while the sample is below `minSample` attempts. */
export function evaluateGates(sample: RampSample, gates: GateThresholds, minSample: number): GateOutcome {
  return explainGates(sample, gates, minSample).outcome;
}

export interface ProbeObservation {
  outcome: Exclude<Outcome, 'cancelled'>;
  latencyMs: number;
  ttftMs?: number;
}

/**
 * A probe passes when it succeeded within the latency and TTFT gates; it fails on a systemic
 * outcome (overload, network, slow) or a success over the latency gates; 429, auth and client
 * errors say nothing about whether the provider recovered, so they are neutral.
 */
export function evaluateProbe(probe: ProbeObservation, gates: GateThresholds): 'pass' | 'fail' | 'neutral' {
  switch (probe.outcome) {
    case 'success': {
      const slowTtft = probe.ttftMs !== undefined && probe.ttftMs > gates.maxTtftP95Ms;
      return probe.latencyMs > gates.maxLatencyP95Ms || slowTtft ? 'fail' : 'pass';
    }
    case 'overload':
    case 'network':
    case 'slow':
      return 'fail';
    case 'rate_limited':
    case 'auth':
    case 'client_error':
      return 'neutral';
  }
}
