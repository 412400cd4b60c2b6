// Whether the provider sheds cleanly, learned from what a ramp sees. A provider with admission
// control answers what it cannot serve at once with a quick error (a full queue's 503) and goes on
// serving at capacity: holding it a little over its capacity costs nothing, and its first errors
// mark the knee. One without it queues until its callers time out and, overloaded, serves less
// (metastable failure): there the first errors come too late, so the ramp must stop at the first
// sign of queueing. Latency alone cannot tell the two apart; their answer to an overshoot can:
// - evidence: a judged level failed a few of its answered calls (SHED_MIN_FAILURE_SHARE up to
//   SHED_MAX_FAILURE_SHARE, at least SHED_MIN_FAILURES) and none of them timed out, without a collapse;
// - confirmation: a later level at least SHED_CONFIRM_SHARE of that one then held over a whole
//   judging window without a single failure (the provider kept serving after it shed);
// - from then on the ramp judges levels by errors first: a level fails below
//   SHEDDING_MIN_SUCCESS_RATE, and latency counts only past SHEDDING_LATENCY_INFLATION × the lowest;
// - a collapse forgets it (and any evidence pending): a provider that collapses does not shed cleanly.
// Learned once, it is kept across recoveries, like the learned capacity. A pool may also declare it
// (`ramp.shedsCleanly`: the operator knows the provider's admission control); the declaration stands
// until a collapse refutes it for that breaker, which from then on learns as any other.
import type { GateThresholds } from '../pool/PoolConfig.js';
import { answeredCalls, type GateOutcome, type RampSample } from './Gates.js';

export const SHED_MIN_FAILURES = 3;
export const SHED_MIN_FAILURE_SHARE = 0.02;
/** more failures than this share is not a knee but an overshoot, whatever the provider does after */
export const SHED_MAX_FAILURE_SHARE = 0.2;
export const SHED_CONFIRM_SHARE = 0.9;
/**
 * Once learned: the knee is where the provider starts answering errors. 0.98 and not the pool's
 * 0.95: a queue that overflows in bursts answers a few per cent 503 at about 104 % of capacity.
 */
export const SHEDDING_MIN_SUCCESS_RATE = 0.98;
/**
 * Once learned: a queue is no danger, so latency gates only far above the lowest (5×: a simple
 * provider's full queue in the simulator; 3.5× gained 1.8 points less over the runs that learned).
 */
export const SHEDDING_LATENCY_INFLATION = 5;

export interface SheddingState {
  /** the provider was seen to shed cleanly (kept across recoveries) */
  shedsCleanly: boolean;
  /** the level at which it shed, awaiting confirmation; null when none is pending */
  shedSeenLevel: number | null;
}

export const NO_SHEDDING: SheddingState = { shedsCleanly: false, shedSeenLevel: null };

/** What one tick of a ramp judged: the level's sample so far, its outcome, and whether its judging window is over. */
export interface ShedObservation {
  level: number;
  sample: Pick<RampSample, 'attempts' | 'successes' | 'rateLimited' | 'timedOut'>;
  outcome: GateOutcome;
  windowOver: boolean;
}

/** A few answered calls failed, none by timing out, and the level did not collapse. */
export function shedQuickly(o: Pick<ShedObservation, 'sample' | 'outcome'>): boolean {
  if (o.outcome === 'collapse' || o.outcome === 'insufficient') return false;
  const { answered, failures } = answeredCalls(o.sample);
  return (
    // a sample that does not count its timeouts proves nothing
    o.sample.timedOut === 0 &&
    failures >= SHED_MIN_FAILURES &&
    failures >= SHED_MIN_FAILURE_SHARE * answered &&
    failures <= SHED_MAX_FAILURE_SHARE * answered
  );
}

/** The shedding state after one tick's observation (the same object when nothing changes). */
export function learnShedding(s: SheddingState, o: ShedObservation): SheddingState {
  if (o.outcome === 'collapse') return s.shedsCleanly || s.shedSeenLevel !== null ? NO_SHEDDING : s;
  if (s.shedsCleanly) return s;
  if (s.shedSeenLevel === null) return shedQuickly(o) ? { shedsCleanly: false, shedSeenLevel: o.level } : s;
  const clean = o.outcome === 'pass' && answeredCalls(o.sample).failures === 0;
  if (clean && o.windowOver && o.level >= SHED_CONFIRM_SHARE * s.shedSeenLevel)
    return { shedsCleanly: true, shedSeenLevel: null };
  return s;
}

/**
 * The gate thresholds a ramp transition was judged by, from the pool's and its figures: tightened as
 * for a clean shedder when the figures say so (what a receipt verifier re-derives the failed gates
 * from). A move that learns or forgets shedding fails the same gates under both: a clean pass
 * fails none, a collapse fails the success rate under either.
 */
export function judgedGateThresholds(
  gates: GateThresholds,
  figures: { shedsCleanly?: boolean },
): GateThresholds {
  return figures.shedsCleanly === true ? shedderGates(gates) : gates;
}

/** The pool's gates tightened on errors, as a clean shedder is judged: its first errors mark the knee. */
function shedderGates(gates: GateThresholds): GateThresholds {
  return { ...gates, minSuccessRate: Math.max(gates.minSuccessRate, SHEDDING_MIN_SUCCESS_RATE) };
}

/** What a breaker knows about its provider's shedding, with whether a collapse refuted its pool's declaration. */
export interface ShedKnowledge extends SheddingState {
  declarationRefuted: boolean;
}

/** Whether a ramp judges its provider as shedding cleanly: learned, or `declared` by its pool and not refuted. */
export function shedsCleanlyNow(
  k: Pick<ShedKnowledge, 'shedsCleanly' | 'declarationRefuted'>,
  declared: boolean,
): boolean {
  return k.shedsCleanly || (declared && !k.declarationRefuted);
}

/**
 * learnShedding for a breaker whose pool may declare that the provider sheds cleanly: while the
 * declaration stands the provider is judged as shedding cleanly, and a collapse refutes it as it
 * forgets what was learned. The same object when nothing changes.
 */
export function learnSheddingDeclared(
  k: ShedKnowledge,
  declared: boolean,
  o: ShedObservation,
): ShedKnowledge {
  const before: SheddingState = {
    shedsCleanly: shedsCleanlyNow(k, declared),
    shedSeenLevel: k.shedSeenLevel,
  };
  const after = learnShedding(before, o);
  if (after === before) return k;
  // only a collapse changes a standing declaration, and it forgets what the ramp judged by
  const standing = declared && !k.declarationRefuted;
  return {
    shedsCleanly: after.shedsCleanly,
    shedSeenLevel: after.shedSeenLevel,
    declarationRefuted: k.declarationRefuted || (standing && !after.shedsCleanly),
  };
}

/** The gates and latency inflation a ramp judges by: the pool's, tightened on errors and loosened on latency once the provider sheds cleanly. */
export function sheddingThresholds(
  gates: GateThresholds,
  latencyInflation: number,
  shedsCleanly: boolean,
): { gates: GateThresholds; latencyInflation: number } {
  if (!shedsCleanly) return { gates, latencyInflation };
  return {
    gates: shedderGates(gates),
    latencyInflation: Math.max(latencyInflation, SHEDDING_LATENCY_INFLATION),
  };
}
