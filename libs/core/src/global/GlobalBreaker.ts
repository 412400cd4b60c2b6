// The global lifecycle of one breaker (docs/architecture.md), as pure functions of a serialisable
// state: CLOSED → OPEN on a quorum of live instances; OPEN → PROBING after a jittered,
// exponentially growing cooldown; PROBING → RAMPING(0) after enough probes pass the gates; a
// stepped ramp that only climbs while the gates hold, settles below a step the provider cannot
// sustain and retries it after ever longer waits; CLOSED only after the last step held a dwell
// and the fleet's demand fits within it (else it stays there: recovered, still throttled).
// Every change comes back with a TransitionRecord for the transition log.
import { backoffDelayMs, type BackoffOptions } from '../backoff/Backoff.js';
import type { PoolConfig } from '../pool/PoolConfig.js';
import type { QuorumDecision } from '../quorum/Quorum.js';
import type { Rng } from '../random/Rng.js';
import {
  evaluateProbe,
  explainGates,
  type GateFigures,
  type ProbeObservation,
  type RampSample,
} from '../ramp/Gates.js';
import { describeLoad, stepLoad, type ClassLoad } from '../ramp/StepLoad.js';
import type { GlobalState, TrafficClass } from '../wire.js';
import { GLOBAL_STATE_VERSION } from './StateVersion.js';

export interface GlobalBreakerState {
  /** schema version of this state as stored (StateVersion.ts): states are upgraded when read */
  v: number;
  state: GlobalState;
  /** +1 each time the breaker enters OPEN: probe tokens and results of an older epoch are stale */
  epoch: number;
  /** when `state` was entered (controller clock, ms) */
  since: number;
  /** recoveries that failed since the last CLOSED: the exponent of the cooldown backoff */
  failedRecoveries: number;
  /** set iff OPEN: PROBING starts at this time */
  cooldownUntil: number | null;
  /** probes passed in this PROBING phase */
  probesPassed: number;
  /** set iff RAMPING: index into pool.ramp.steps */
  step: number | null;
  /** set iff RAMPING: start of the current judging window; the ramp sample covers [stepSince, now] */
  stepSince: number | null;
  /** operator pause: the ramp does not move (a collapse still acts) */
  rampPaused: boolean;
  /** gates degraded at this step: held for one dwell before stepping back */
  heldAtStep: number | null;
  /** lowest step that degraded or collapsed in this ramp; climbed to only after nextStepUpAfter */
  ceiling: number | null;
  /** times the ceiling was found again: the retry wait is dwell·2^ceilingRetries (capped) */
  ceilingRetries: number;
  /** set iff ceiling is set: the ceiling may be retried from this time */
  nextStepUpAfter: number | null;
  /** the last step whose gates passed in this ramp: where a collapse above it lands */
  lastPassedStep: number | null;
  /**
   * recovered at a sustainable level: the gates hold just below a ceiling that is not yet retried,
   * or at the last step while the fleet still wants more than it allows (not closed yet)
   */
  settled: boolean;
  /** operator force_open: stays OPEN (no probing) until force_close or resume_ramp */
  operatorHold: boolean;
  /**
   * set after a step back (RAMPING only): the provider is still draining the higher step's load,
   * so until this time the landing step is not judged (not even a collapse); then its judging
   * window starts afresh. Absent in states stored before it existed (read as null).
   */
  drainingUntil?: number | null;
  /**
   * set by an operator force_close: until this time no quorum opens the breaker, so instances still
   * reporting `open` (they have not yet heard the CLOSED plan) get one heartbeat TTL to catch up.
   * Absent in states stored before it existed (read as null).
   */
  quorumQuietUntil?: number | null;
}

export type TransitionActor = 'quorum' | 'cooldown' | 'probe' | 'ramp' | 'operator';
export type OperatorAction = 'force_open' | 'force_close' | 'pause_ramp' | 'resume_ramp';
export const OPERATOR_ACTIONS: readonly OperatorAction[] = [
  'force_open',
  'force_close',
  'pause_ramp',
  'resume_ramp',
];

/** The evidence that justified a transition (whichever applies). */
export interface TransitionFigures {
  quorum?: Pick<QuorumDecision, 'open' | 'live' | 'threshold'> & { formedBy?: string[] };
  gates?: GateFigures;
  probe?: ProbeObservation & {
    verdict: 'pass' | 'fail' | 'neutral';
    probesPassed: number;
    probesToPass: number;
  };
  /** the cooldown drawn on entering OPEN */
  cooldownMs?: number;
  ceiling?: number | null;
  nextStepUpAfter?: number | null;
  failedRecoveries?: number;
  action?: OperatorAction;
  /** force_close: no quorum opens the breaker before this time (controller clock, ms) */
  quorumQuietUntil?: number;
  /** at the last step: the fleet's demand against the step's rate, per admitted class (req/s) */
  load?: Record<TrafficClass, ClassLoad>;
}

export interface TransitionRecord {
  at: number;
  from: GlobalState;
  to: GlobalState;
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: TransitionActor;
  reason: string;
  figures: TransitionFigures;
}

export interface Decision {
  next: GlobalBreakerState;
  transitions: TransitionRecord[];
}

/** Cooldown OPEN → PROBING: pool.probe.cooldownMs doubled per failed recovery, up to 32×, −20 % jitter. */
export function cooldownBackoff(pool: PoolConfig): BackoffOptions {
  const base = pool.probe.cooldownMs;
  return { baseMs: base, maxMs: base * 32, multiplier: 2, jitter: 0.2 };
}

/** A ceiling found k times is retried after dwell·2^k, at most dwell·2^MAX_CEILING_EXPONENT. */
export const MAX_CEILING_EXPONENT = 5;

export function ceilingRetryWaitMs(dwellMs: number, ceilingRetries: number): number {
  return dwellMs * 2 ** Math.min(MAX_CEILING_EXPONENT, Math.max(0, ceilingRetries));
}

/** The fields of a ramp, cleared whenever the breaker is not ramping. */
const NO_RAMP = {
  step: null,
  stepSince: null,
  heldAtStep: null,
  ceiling: null,
  ceilingRetries: 0,
  nextStepUpAfter: null,
  lastPassedStep: null,
  settled: false,
  drainingUntil: null,
} as const;

/** Every field of a CLOSED breaker but its epoch: no ramp, no cooldown, no count of failures. */
function closedFields(now: number) {
  return {
    ...NO_RAMP,
    state: 'closed',
    since: now,
    failedRecoveries: 0,
    cooldownUntil: null,
    probesPassed: 0,
    rampPaused: false,
    operatorHold: false,
  } as const;
}

export function initialGlobalState(now: number): GlobalBreakerState {
  return { v: GLOBAL_STATE_VERSION, ...closedFields(now), epoch: 0, quorumQuietUntil: null };
}

function record(
  s: GlobalBreakerState,
  next: GlobalBreakerState,
  at: number,
  actor: TransitionActor,
  reason: string,
  figures: TransitionFigures,
): TransitionRecord {
  return {
    at,
    from: s.state,
    to: next.state,
    epoch: next.epoch,
    fromStep: s.step,
    step: next.step,
    actor,
    reason,
    figures,
  };
}

function unchanged(s: GlobalBreakerState): Decision {
  return { next: s, transitions: [] };
}

/** Enter OPEN (a new epoch) with a cooldown drawn from the backoff of `failedRecoveries`. */
function open(
  s: GlobalBreakerState,
  now: number,
  pool: PoolConfig,
  rng: Rng,
  failedRecoveries: number,
  operatorHold: boolean,
): { next: GlobalBreakerState; cooldownMs: number } {
  const cooldownMs = backoffDelayMs(failedRecoveries, cooldownBackoff(pool), rng);
  const next: GlobalBreakerState = {
    ...s,
    ...NO_RAMP,
    state: 'open',
    epoch: s.epoch + 1,
    since: now,
    failedRecoveries,
    cooldownUntil: now + cooldownMs,
    probesPassed: 0,
    operatorHold,
  };
  return { next, cooldownMs };
}

function closed(s: GlobalBreakerState, now: number): GlobalBreakerState {
  return { ...s, ...closedFields(now) };
}

/**
 * CLOSED + quorum reached → OPEN. Other states ignore the quorum: their own gates decide. After an
 * operator force_close the quorum is not heeded until `quorumQuietUntil` (the operator's word holds).
 */
export function onQuorum(
  s: GlobalBreakerState,
  decision: Pick<QuorumDecision, 'reached' | 'open' | 'live' | 'threshold'> & { formedBy?: string[] },
  now: number,
  pool: PoolConfig,
  rng: Rng,
): Decision {
  if (s.state !== 'closed' || !decision.reached) return unchanged(s);
  const quietUntil = s.quorumQuietUntil ?? null;
  if (quietUntil !== null && now < quietUntil) return unchanged(s);
  const { next, cooldownMs } = open(s, now, pool, rng, s.failedRecoveries, false);
  const quorum = { open: decision.open, live: decision.live, threshold: decision.threshold };
  const reason = `quorum: ${decision.open} of ${decision.live} live instances locally open (threshold ${decision.threshold})`;
  const figures: TransitionFigures = {
    quorum: decision.formedBy ? { ...quorum, formedBy: [...decision.formedBy] } : quorum,
    cooldownMs,
    failedRecoveries: next.failedRecoveries,
  };
  return { next, transitions: [record(s, next, now, 'quorum', reason, figures)] };
}

export interface TickInput {
  now: number;
  rng: Rng;
  pool: PoolConfig;
  /** RAMPING: what admitted traffic showed since `stepSince` (summed over instances) */
  sample?: RampSample;
  /**
   * RAMPING: the live fleet's reported demand per class (req/s, refused calls and backlog
   * included). The last step closes only when it fits the step's rate; without it the ramp
   * cannot tell and closes once the last step held.
   */
  demand?: Record<TrafficClass, number>;
}

/** Timers and the ramp: OPEN → PROBING after the cooldown; RAMPING judged on its sample. */
export function onTick(s: GlobalBreakerState, input: TickInput): Decision {
  const { now } = input;
  if (s.state === 'open') {
    if (s.operatorHold || s.cooldownUntil === null || now < s.cooldownUntil) return unchanged(s);
    const next: GlobalBreakerState = {
      ...s,
      state: 'probing',
      since: now,
      cooldownUntil: null,
      probesPassed: 0,
    };
    const reason = `cooldown over after ${now - s.since} ms (failed recoveries: ${s.failedRecoveries})`;
    return {
      next,
      transitions: [record(s, next, now, 'cooldown', reason, { failedRecoveries: s.failedRecoveries })],
    };
  }
  if (s.state === 'ramping') return rampTick(s, input);
  return unchanged(s);
}

function rampTick(s0: GlobalBreakerState, { now, rng, pool, sample, demand }: TickInput): Decision {
  const last = pool.ramp.steps.length - 1;
  // the pool may have lost steps since the ramp began: stay within range
  const s =
    s0.step !== null && s0.step > last ? { ...s0, step: last, ceiling: null, nextStepUpAfter: null } : s0;
  const step = s.step ?? 0;
  const stepSince = s.stepSince ?? now;
  const draining = s.drainingUntil ?? null;
  if (draining !== null) {
    // just stepped back: what the provider shows now is the aftermath of the step above
    if (now < draining) return unchanged(s);
    return { next: { ...s, drainingUntil: null, stepSince: now, heldAtStep: null }, transitions: [] };
  }
  if (!sample) return unchanged(s);
  const gates = explainGates(sample, pool.ramp.gates, pool.ramp.minSample);
  const move = (next: GlobalBreakerState, reason: string, extra: TransitionFigures = {}): Decision => ({
    next,
    transitions: [record(s, next, now, 'ramp', reason, { gates, ...extra })],
  });
  // only ever set when stepping back: the retry wait counts from the end of the landing step's drain
  const withCeiling = (c: number, retries: number) => ({
    ceiling: c,
    ceilingRetries: retries,
    nextStepUpAfter: now + pool.ramp.dwellMs + ceilingRetryWaitMs(pool.ramp.dwellMs, retries),
  });
  const stepTo = (to: number, extra: Partial<GlobalBreakerState>): GlobalBreakerState => ({
    ...s,
    step: to,
    stepSince: now,
    heldAtStep: null,
    settled: false,
    // stepping back: the landing step gets one dwell for the provider to drain before it is judged
    drainingUntil: to < step ? now + pool.ramp.dwellMs : null,
    ...extra,
  });
  const reopen = (reason: string): Decision => {
    const { next, cooldownMs } = open(s, now, pool, rng, s.failedRecoveries + 1, false);
    return move(next, reason, { cooldownMs, failedRecoveries: next.failedRecoveries });
  };

  // a collapse acts at once (no dwell, even paused): land on the last step that held, else reopen
  if (gates.outcome === 'collapse') {
    const landing = s.lastPassedStep;
    if (landing !== null && landing < step) {
      const retries = s.ceiling !== null && step >= s.ceiling ? s.ceilingRetries + 1 : 1;
      const next = stepTo(landing, { ...withCeiling(step, retries), lastPassedStep: null });
      return move(next, `collapse at step ${step}: back to step ${landing}, the last that held`, {
        ceiling: next.ceiling,
        nextStepUpAfter: next.nextStepUpAfter,
      });
    }
    return reopen(`collapse at step ${step}`);
  }
  if (s.rampPaused || now < stepSince + pool.ramp.dwellMs || gates.outcome === 'insufficient')
    return unchanged(s);

  if (gates.outcome === 'degrade') {
    const retrying = s.ceiling !== null && step >= s.ceiling;
    if (s.heldAtStep === null && !retrying) {
      const next = { ...s, heldAtStep: step, stepSince: now, settled: false };
      return move(next, `gates degraded at step ${step} (${gates.failed.join(', ')}): holding one dwell`);
    }
    if (step === 0) return reopen(`gates still degraded at step 0 (${gates.failed.join(', ')})`);
    const retries = retrying ? s.ceilingRetries + 1 : 1;
    const ceiling = retrying ? Math.min(s.ceiling ?? step, step) : step;
    const next = stepTo(step - 1, withCeiling(ceiling, retries));
    const reason = `gates degraded at step ${step} (${gates.failed.join(', ')}): back to step ${step - 1}`;
    return move(next, reason, { ceiling: next.ceiling, nextStepUpAfter: next.nextStepUpAfter });
  }

  // pass
  const passedCeiling = s.ceiling !== null && step >= s.ceiling;
  const base: Partial<GlobalBreakerState> = passedCeiling
    ? { ceiling: null, ceilingRetries: 0, nextStepUpAfter: null, lastPassedStep: step }
    : { lastPassedStep: step };
  if (step >= last) {
    const load = demand ? stepLoad(pool, step, demand) : null;
    const figures: TransitionFigures = load ? { load: load.classes } : {};
    if (load?.binding) {
      // lifting the limits now would send the whole backlog at once: stay, judged again each dwell
      const next: GlobalBreakerState = { ...s, ...base, stepSince: now, heldAtStep: null, settled: true };
      if (s.settled) return { next, transitions: [] };
      const reason = `last step held but the fleet wants more than it allows (${describeLoad(load)}): settled, still throttled`;
      return move(next, reason, figures);
    }
    const next = closed(s, now);
    const fits = load ? ` and the fleet's demand fits (${describeLoad(load)})` : '';
    return move(next, `last step held for ${now - stepSince} ms${fits}: recovered`, figures);
  }
  const blocked =
    !passedCeiling && s.ceiling !== null && step + 1 >= s.ceiling && now < (s.nextStepUpAfter ?? 0);
  if (blocked) {
    // a fresh window each dwell, so a later degrade is not diluted by a long healthy history
    const next: GlobalBreakerState = { ...s, ...base, stepSince: now, heldAtStep: null, settled: true };
    if (s.settled) return { next, transitions: [] };
    const reason = `settled at step ${step}: gates hold, step ${s.ceiling} retried from ${s.nextStepUpAfter}`;
    return move(next, reason, { ceiling: s.ceiling, nextStepUpAfter: s.nextStepUpAfter });
  }
  const retry = !passedCeiling && s.ceiling !== null && step + 1 >= s.ceiling;
  const next = stepTo(step + 1, base);
  const reason = retry
    ? `gates held at step ${step}: retrying step ${step + 1} after the longer dwell`
    : `gates held at step ${step} for ${now - stepSince} ms: step ${step + 1}`;
  return move(next, reason, retry ? { ceiling: s.ceiling, nextStepUpAfter: s.nextStepUpAfter } : {});
}

export interface ProbeResultInput extends ProbeObservation {
  /** the epoch the token was granted in; a result of another epoch is stale and ignored */
  epoch?: number;
}

/** PROBING: enough passes → RAMPING(0); a failure → OPEN with a longer cooldown; neutral → nothing. */
export function onProbeResult(
  s: GlobalBreakerState,
  result: ProbeResultInput,
  pool: PoolConfig,
  now: number,
  rng: Rng,
): Decision {
  if (s.state !== 'probing' || (result.epoch !== undefined && result.epoch !== s.epoch)) return unchanged(s);
  const verdict = evaluateProbe(result, pool.ramp.gates);
  if (verdict === 'neutral') return unchanged(s);
  const observed: ProbeObservation = { outcome: result.outcome, latencyMs: result.latencyMs };
  if (result.ttftMs !== undefined) observed.ttftMs = result.ttftMs;
  const probesToPass = Math.max(1, pool.probe.probesToPass);
  if (verdict === 'fail') {
    const { next, cooldownMs } = open(s, now, pool, rng, s.failedRecoveries + 1, false);
    const figures: TransitionFigures = {
      probe: { ...observed, verdict, probesPassed: s.probesPassed, probesToPass },
      cooldownMs,
      failedRecoveries: next.failedRecoveries,
    };
    const reason = `probe failed (${result.outcome}, ${result.latencyMs} ms)`;
    return { next, transitions: [record(s, next, now, 'probe', reason, figures)] };
  }
  const probesPassed = s.probesPassed + 1;
  const figures: TransitionFigures = { probe: { ...observed, verdict, probesPassed, probesToPass } };
  if (probesPassed < probesToPass) {
    const next = { ...s, probesPassed };
    const reason = `probe passed (${probesPassed} of ${probesToPass})`;
    return { next, transitions: [record(s, next, now, 'probe', reason, figures)] };
  }
  const next: GlobalBreakerState = {
    ...s,
    ...NO_RAMP,
    state: 'ramping',
    since: now,
    probesPassed,
    step: 0,
    stepSince: now,
  };
  const reason = `${probesPassed} of ${probesToPass} probes passed: ramping from step 0`;
  return { next, transitions: [record(s, next, now, 'probe', reason, figures)] };
}

/**
 * Operator overrides, valid in any state and always recorded. `quorumQuietMs` (the controller's
 * heartbeat TTL): after force_close no quorum opens the breaker for that long, as after a restart.
 */
export function applyOperatorAction(
  s: GlobalBreakerState,
  action: OperatorAction,
  reason: string,
  now: number,
  pool: PoolConfig,
  rng: Rng,
  quorumQuietMs = 0,
): Decision {
  let next: GlobalBreakerState;
  const figures: TransitionFigures = { action };
  switch (action) {
    case 'force_open':
      if (s.state === 'open') next = { ...s, operatorHold: true };
      else {
        const opened = open(s, now, pool, rng, s.failedRecoveries, true);
        next = opened.next;
        figures.cooldownMs = opened.cooldownMs;
      }
      break;
    case 'force_close':
      next = { ...closed(s, now), quorumQuietUntil: now + Math.max(0, quorumQuietMs) };
      figures.quorumQuietUntil = now + Math.max(0, quorumQuietMs);
      break;
    case 'pause_ramp':
      next = { ...s, rampPaused: true };
      break;
    case 'resume_ramp':
      // a fresh judging window: what happened while paused was not at the pace the ramp chose
      next = {
        ...s,
        rampPaused: false,
        operatorHold: false,
        stepSince: s.state === 'ramping' ? now : s.stepSince,
      };
      break;
  }
  const why = reason.trim() === '' ? action : `${action}: ${reason}`;
  return { next, transitions: [record(s, next, now, 'operator', why, figures)] };
}
