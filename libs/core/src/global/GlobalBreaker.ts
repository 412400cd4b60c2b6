// The global lifecycle of one breaker (docs/architecture.md), as pure functions of a serialisable
// state: CLOSED → OPEN on a quorum of live instances; OPEN → PROBING after a jittered cooldown;
// while the provider is still down a failed probe reopens with a short jittered probe interval
// (not a longer cooldown: only a collapsed ramp backs off); PROBING → RAMPING after enough probes
// pass the gates; a ramp that finds the provider's capacity (RampLevel.ts) — geometric growth while
// the gates hold, bisection between the last level that held and the first that failed, settling
// with headroom below it — and judges each level once it has its minimum sample (after a floor);
// CLOSED only after the top level held and the fleet's demand fits within it. Each breaker keeps
// the level it last sustained (its learned capacity) across recoveries.
// Every change comes back with a TransitionRecord for the transition log.
import { backoffDelayMs, type BackoffOptions } from '../backoff/Backoff.js';
import { roundTo } from '../numbers/Round.js';
import type { GateThresholds, PoolConfig } from '../pool/PoolConfig.js';
import type { QuorumDecision } from '../quorum/Quorum.js';
import type { Rng } from '../random/Rng.js';
import {
  evaluateProbe,
  explainGates,
  type GateFigures,
  type ProbeObservation,
  type RampSample,
} from '../ramp/Gates.js';
import {
  BISECT_PRECISION,
  bisectedLevel,
  decreasedLevel,
  deliveredLevel,
  landingLevel,
  grownLevel,
  latencyRatio,
  learnedAfterCollapse,
  SLIPPED_DECREASE,
  slipShare,
  startLevel,
  topLevel,
} from '../ramp/RampLevel.js';
import { stepBudget } from '../ramp/Allowance.js';
import {
  learnSheddingDeclared,
  type ShedKnowledge,
  sheddingThresholds,
  shedsCleanlyNow,
} from '../ramp/Shedding.js';
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
  /** ramps that collapsed since the last CLOSED: the exponent of the cooldown backoff */
  failedRecoveries: number;
  /** set iff OPEN: PROBING starts at this time */
  cooldownUntil: number | null;
  /** probes passed in this PROBING phase */
  probesPassed: number;
  /**
   * set iff RAMPING: the ramp's moves in this epoch (0, 1, 2, …): every change of level is a new
   * step, so (epoch, step) names one level's judging and allowance division
   */
  step: number | null;
  /** set iff RAMPING: the fraction of each admitted class's capacity admitted now */
  level: number | null;
  /** set iff RAMPING: start of the current judging window; the ramp sample covers [stepSince, now] */
  stepSince: number | null;
  /** operator pause: the ramp does not move (a collapse still acts) */
  rampPaused: boolean;
  /** the highest level whose gates passed in this recovery: where a failure above it lands */
  heldLevel: number | null;
  /** the lowest level that degraded or collapsed in this recovery: the limit found */
  failedLevel: number | null;
  /** times a limit was found again: the wait before trying above it is 5·dwell·2^retries (capped) */
  ceilingRetries: number;
  /** set while settled below failedLevel: levels above the settled one may be tried again from this time */
  nextStepUpAfter: number | null;
  /** the lowest p95 latency seen in this recovery (the probes' and the levels' that passed) */
  baselineLatencyMs: number | null;
  /**
   * learned capacity, kept across recoveries: the level the breaker last sustained (the top when it
   * closed, the level it settled at, multiplicatively less after a collapse); null = never learned
   */
  sustainedLevel: number | null;
  /**
   * recovered at a sustainable level: the gates hold just below a limit that is not yet retried,
   * or at the top level while the fleet still wants more than it allows (not closed yet)
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
   * set while draining after a step back: the level the ramp lands on once the drain is over; until
   * then it admits DRAIN_SHARE of it, so the queue the level above built drains instead of being
   * judged as the landing level's. Absent in states stored before it existed (read as null).
   */
  drainTo?: number | null;
  /**
   * set by an operator force_close: until this time no quorum opens the breaker, so instances still
   * reporting `open` (they have not yet heard the CLOSED plan) get one heartbeat TTL to catch up.
   * Absent in states stored before it existed (read as null).
   */
  quorumQuietUntil?: number | null;
  /**
   * learned, kept across recoveries: the provider sheds cleanly (ramp/Shedding.ts), so levels are
   * judged by its errors first and by latency only far above the lowest. Absent in states stored
   * before it existed (read as false).
   */
  shedsCleanly?: boolean;
  /**
   * set while RAMPING: the level at which the provider shed quickly in this recovery, awaiting a
   * clean level to confirm that it sheds cleanly. Absent in states stored before it existed (null).
   */
  shedSeenLevel?: number | null;
  /**
   * a collapse refuted the pool's word that the provider sheds cleanly (`ramp.shedsCleanly`): this
   * breaker learns it as if nothing had been declared (ramp/Shedding.ts). Kept across recoveries.
   * Absent in states stored before it existed (read as false).
   */
  shedDeclarationRefuted?: boolean;
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
  /** the ramp's level after the transition, the limit found and the learned level */
  level?: number | null;
  failedLevel?: number | null;
  sustainedLevel?: number | null;
  nextStepUpAfter?: number | null;
  /** a ramp move that settled the level (saturated, under a limit it found, or the top still throttled); absent otherwise */
  settled?: true;
  /** a ramp move judged as for a provider that sheds cleanly (ramp/Shedding.ts); absent otherwise */
  shedsCleanly?: boolean;
  /** the collapse that refuted the pool's `ramp.shedsCleanly` for this breaker; absent otherwise */
  shedDeclarationRefuted?: true;
  /**
   * a ramp move: the recovery's lowest p95 (ms) and the judged p95 over it (over LATENCY_FLOOR_MS
   * when the lowest is under that), what latencyInflation and the growth read
   */
  baselineLatencyMs?: number | null;
  latencyRatio?: number;
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

/**
 * The wait before the next probe after one that failed: pool.probe.intervalMs drawn from [½, 1½]×,
 * never sooner than the probe rate allows (1 s / ratePerSec). Not a function of how many failed.
 */
export function probeIntervalMs(pool: PoolConfig, rng: Rng): number {
  const floor = 1000 / Math.max(1e-9, pool.probe.ratePerSec);
  return Math.max(floor, pool.probe.intervalMs * (0.5 + rng.next()));
}

/** A limit found k times is tried above again after SETTLE_DWELLS·dwell·2^k, at most 2^MAX_CEILING_EXPONENT× that. */
export const MAX_CEILING_EXPONENT = 2;
export const SETTLE_DWELLS = 5;
/** After a step down the landing level is not judged for this many dwells: the provider drains what queued above it. */
export const DRAIN_DWELLS = 2;
/**
 * While draining, the ramp admits this share of the level it lands on: at the landing level itself
 * a queue built above it drains only as fast as the level is under the provider's capacity (not at
 * all when the level is right at it), and the landing level then fails on the queue it inherited.
 */
export const DRAIN_SHARE = 0.75;
/** A level's pass counts once its sample carried this share of a dwell at the level's rate (or the demand). */
export const USED_SHARE = 0.25;
/** A settled level is judged over windows of this many dwells (a few failures in one dwell are noise). */
export const SETTLED_WINDOW_DWELLS = 3;

export function ceilingRetryWaitMs(dwellMs: number, ceilingRetries: number): number {
  return SETTLE_DWELLS * dwellMs * 2 ** Math.min(MAX_CEILING_EXPONENT, Math.max(0, ceilingRetries));
}

/** The fields of a ramp, cleared whenever the breaker is not ramping. */
const NO_RAMP = {
  step: null,
  level: null,
  stepSince: null,
  heldLevel: null,
  failedLevel: null,
  ceilingRetries: 0,
  nextStepUpAfter: null,
  baselineLatencyMs: null,
  settled: false,
  drainingUntil: null,
  drainTo: null,
  shedSeenLevel: null,
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
  return {
    v: GLOBAL_STATE_VERSION,
    ...closedFields(now),
    epoch: 0,
    sustainedLevel: null,
    quorumQuietUntil: null,
    shedsCleanly: false,
    shedDeclarationRefuted: false,
  };
}

/** The level admitted now: the ramp's level while RAMPING, else null (CLOSED: unlimited; OPEN, PROBING: none). */
export function admittedLevel(s: Pick<GlobalBreakerState, 'state' | 'level'>): number | null {
  return s.state === 'ramping' ? s.level : null;
}

/**
 * The level a RAMPING breaker admits under `pool` (null otherwise): its level, within the pool's
 * top; a state stored before levels existed (or built without one) resumes at the start level.
 */
export function currentLevel(
  s: Pick<GlobalBreakerState, 'state' | 'level'>,
  pool: Pick<PoolConfig, 'ramp'>,
): number | null {
  if (s.state !== 'ramping') return null;
  return Math.min(topLevel(pool.ramp), s.level ?? startLevel(pool.ramp));
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

/**
 * Enter OPEN (a new epoch) with a cooldown drawn from the backoff of `failedRecoveries`, or the
 * given one (a failed probe's short interval).
 */
function open(
  s: GlobalBreakerState,
  now: number,
  pool: PoolConfig,
  rng: Rng,
  failedRecoveries: number,
  operatorHold: boolean,
  cooldown?: number,
): { next: GlobalBreakerState; cooldownMs: number } {
  const cooldownMs = cooldown ?? backoffDelayMs(failedRecoveries, cooldownBackoff(pool), rng);
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
    const reason = `cooldown over after ${ms(now - s.since)} (failed recoveries: ${s.failedRecoveries})`;
    return {
      next,
      transitions: [record(s, next, now, 'cooldown', reason, { failedRecoveries: s.failedRecoveries })],
    };
  }
  if (s.state === 'ramping') return rampTick(s, input);
  return unchanged(s);
}

function rampTick(stored: GlobalBreakerState, { now, rng, pool, sample, demand }: TickInput): Decision {
  let s = stored;
  const { ramp } = pool;
  const top = topLevel(ramp);
  const level = currentLevel(s, pool)!;
  const step = s.step ?? 0;
  const stepSince = s.stepSince ?? now;
  // what a level of this provider is judged on, a drain's end included (ramp/Shedding.ts)
  const declared = ramp.shedsCleanly;
  const asShedder = shedsCleanlyNow(shedKnowledge(s), declared);
  const judgedBy = sheddingThresholds(ramp.gates, ramp.latencyInflation, asShedder);
  const draining = s.drainingUntil ?? null;
  if (draining !== null) {
    // just stepped back: what the provider shows now is the aftermath of the level above
    if (now < draining) return unchanged(s);
    const landing = s.drainTo ?? null;
    const judged =
      landing !== null && sample ? judgeDrain(ramp, judgedBy.gates, landing, level, sample) : null;
    // the drain itself failed: the provider lost capacity while the level above queued, so the
    // landing is sized afresh from what it delivered during the drain, and drained again below it
    const relanded = judged?.relanded ?? null;
    /** either move below carries the evidence it was judged on: what the provider did during the drain */
    const drainFigures = (to: number): TransitionFigures => ({
      ...(judged ? { gates: judged.gates } : {}),
      // judged as for a clean shedder: the log then records the thresholds it was judged by
      ...(asShedder ? { shedsCleanly: true } : {}),
      level: to,
      failedLevel: s.failedLevel,
      sustainedLevel: s.sustainedLevel,
    });
    if (relanded !== null) {
      const below = drainLevel(ramp, relanded);
      const next: GlobalBreakerState = {
        ...s,
        step: step + 1,
        level: below,
        stepSince: now,
        heldLevel: relanded,
        drainingUntil: now + DRAIN_DWELLS * ramp.dwellMs,
        drainTo: relanded,
      };
      const reason = `drain at level ${pct(level)} failed: landing on ${pct(relanded)}, what it delivered`;
      return { next, transitions: [record(s, next, now, 'ramp', reason, drainFigures(below))] };
    }
    if (landing === null || !(landing > level))
      return { next: { ...s, drainingUntil: null, drainTo: null, stepSince: now }, transitions: [] };
    // drained below the landing level: land on it, a new step judged from now
    const next: GlobalBreakerState = {
      ...s,
      step: step + 1,
      level: landing,
      stepSince: now,
      drainingUntil: null,
      drainTo: null,
    };
    const reason = `drained at level ${pct(level)}: level ${pct(landing)}`;
    return { next, transitions: [record(s, next, now, 'ramp', reason, drainFigures(landing))] };
  }
  if (!sample) return unchanged(s);
  const latency = sample.latencyP95Ms;
  const ratio = latencyRatio(latency, s.baselineLatencyMs);
  const gates = inflationGate(
    explainGates(sample, judgedBy.gates, ramp.minSample),
    ratio,
    judgedBy.latencyInflation,
  );
  const window = judgingWindowMs(s, ramp.dwellMs);
  // what the provider did with this level's errors: learned before any move, so the move carries it
  const shedding = shedKnowledge(s);
  const shedLearned = learnSheddingDeclared(shedding, declared, {
    level,
    sample,
    outcome: gates.outcome,
    windowOver: now >= stepSince + window,
  });
  if (shedLearned !== shedding)
    s = {
      ...s,
      shedsCleanly: shedLearned.shedsCleanly,
      shedSeenLevel: shedLearned.shedSeenLevel,
      shedDeclarationRefuted: shedLearned.declarationRefuted,
    };
  const move = (next: GlobalBreakerState, reason: string, extra: TransitionFigures = {}): Decision => ({
    next,
    transitions: [
      record(s, next, now, 'ramp', reason, {
        gates,
        ...(ratio !== null ? { baselineLatencyMs: s.baselineLatencyMs, latencyRatio: roundTo(ratio) } : {}),
        level: next.level,
        failedLevel: next.failedLevel,
        sustainedLevel: next.sustainedLevel,
        ...(shedsCleanlyNow(shedKnowledge(next), declared) ? { shedsCleanly: true } : {}),
        ...(next.settled ? { settled: true as const } : {}),
        ...extra,
      }),
    ],
  });
  /**
   * a new level is a new step: its own judging window, after a drain when it is lower — below it
   * (DRAIN_SHARE) unless `shallow`: a level that slipped only queued a little, its cut drains that
   */
  const levelTo = (to: number, extra: Partial<GlobalBreakerState>, shallow = false): GlobalBreakerState => ({
    ...s,
    step: step + 1,
    level: to < level && !shallow ? drainLevel(ramp, to) : to,
    stepSince: now,
    settled: false,
    drainingUntil: to < level ? now + DRAIN_DWELLS * ramp.dwellMs : null,
    drainTo: to < level && !shallow ? to : null,
    ...extra,
  });
  /** a limit found at `failed`: remembered; found again, the wait before trying above it grows */
  const limitFound = (failed: number): Partial<GlobalBreakerState> => ({
    failedLevel: Math.min(failed, s.failedLevel ?? failed),
    ceilingRetries: s.failedLevel !== null || s.settled ? s.ceilingRetries + 1 : s.ceilingRetries,
    nextStepUpAfter: null,
  });
  const held = s.heldLevel !== null && s.heldLevel < level ? s.heldLevel : null;
  // what the provider delivered at this level: a failed level lands no higher (learned capacity)
  const delivered = deliveredLevel(level, sample.successes, sample.attempts);
  const landing = held === null ? null : landingLevel(ramp, held, delivered);

  // a collapse acts at once (no dwell, even paused): land on the last level that held, else reopen;
  // either way the learned level falls multiplicatively
  if (gates.outcome === 'collapse') {
    const sustainedLevel = learnedAfterCollapse(ramp, s.sustainedLevel, level, s.failedLevel);
    // the operator's word that the provider sheds cleanly falls with this collapse: the log says so
    const refutes = shedLearned.declarationRefuted && !shedding.declarationRefuted;
    const refuted = refutes ? "; the pool's ramp.shedsCleanly is refuted for this breaker" : '';
    const refutedFigure = refutes ? { shedDeclarationRefuted: true as const } : {};
    if (landing !== null) {
      const next = levelTo(landing, { ...limitFound(level), sustainedLevel, heldLevel: landing });
      const to =
        landing < held! ? `${pct(landing)}, what it delivered` : `${pct(landing)}, the last that held`;
      return move(next, `collapse at level ${pct(level)}: back to ${to}${refuted}`, refutedFigure);
    }
    const { next, cooldownMs } = open(s, now, pool, rng, s.failedRecoveries + 1, false);
    const reopened = { ...next, sustainedLevel };
    return move(reopened, `collapse at level ${pct(level)}${refuted}`, {
      cooldownMs,
      failedRecoveries: reopened.failedRecoveries,
      ...refutedFigure,
    });
  }
  if (s.rampPaused || now < stepSince + window || gates.outcome === 'insufficient') return unchanged(s);

  if (gates.outcome === 'degrade') {
    const failed = gates.failed.join(', ');
    if (landing !== null) {
      const next = levelTo(landing, { ...limitFound(level), heldLevel: landing });
      return move(next, `gates degraded at level ${pct(level)} (${failed}): back to ${pct(landing)}`);
    }
    // nothing lower is known to hold (this level held before and no longer does, or it is the first)
    const heldBefore = s.heldLevel !== null && s.heldLevel >= level;
    // at the top the level is the pool's whole capacity, sized to the provider: its inflation is a
    // burst's queue and it slips SLIPPED_DECREASE; errors have their own reading (ramp/Shedding.ts)
    const onLatencyAlone = gates.failed.every((g) => g === 'latencyInflation');
    const slipped =
      level < top && onLatencyAlone ? slipShare(ratio, judgedBy.latencyInflation) : SLIPPED_DECREASE;
    const lower = decreasedLevel(ramp, level, heldBefore, slipped);
    if (!(lower < level)) {
      const { next, cooldownMs } = open(s, now, pool, rng, s.failedRecoveries + 1, false);
      return move(next, `gates still degraded at the ramp's lowest level ${pct(level)} (${failed})`, {
        cooldownMs,
        failedRecoveries: next.failedRecoveries,
      });
    }
    const next = levelTo(lower, { ...limitFound(level), heldLevel: null }, heldBefore);
    return move(next, `gates degraded at level ${pct(level)} (${failed}): down to ${pct(lower)}`);
  }

  // pass, but only once the level was used: it must have carried USED_SHARE of a dwell at its rate
  // (or at the fleet's demand, when that is lower); a level judged on a sample of less load than it
  // admits would pass without having been tried (instances take up a new allowance gradually)
  if (sample.attempts < usedEnough(pool, step, level, demand)) return unchanged(s);
  const baselineLatencyMs =
    latency !== null && latency > 0 ? Math.min(latency, s.baselineLatencyMs ?? latency) : s.baselineLatencyMs;
  const passed: Partial<GlobalBreakerState> = {
    heldLevel: Math.max(level, s.heldLevel ?? 0),
    baselineLatencyMs,
  };
  if (level >= top) {
    const load = demand ? stepLoad(pool, { step, level }, demand) : null;
    const figures: TransitionFigures = load ? { load: load.classes } : {};
    if (load?.binding) {
      // lifting the limits now would send the whole backlog at once: stay, judged again each dwell
      const next: GlobalBreakerState = {
        ...s,
        ...passed,
        stepSince: now,
        settled: true,
        sustainedLevel: top,
      };
      if (s.settled) return { next, transitions: [] };
      const reason = `top level held but the fleet wants more than it allows (${describeLoad(load)}): settled, still throttled`;
      return move(next, reason, figures);
    }
    const next = { ...closed(s, now), sustainedLevel: top };
    const fits = load ? ` and the fleet's demand fits (${describeLoad(load)})` : '';
    return move(next, `top level held for ${ms(now - stepSince)}${fits}: recovered`, figures);
  }
  const heldNow = passed.heldLevel!;
  /** settled at this level until `retryAt` (a fresh window each time, so a later degrade is not diluted by a long healthy history) */
  const settledHere = (retryAt: number, extra: Partial<GlobalBreakerState> = {}): GlobalBreakerState => ({
    ...s,
    ...passed,
    stepSince: now,
    settled: true,
    nextStepUpAfter: retryAt,
    sustainedLevel: heldNow,
    ...extra,
  });
  if (s.failedLevel !== null && s.failedLevel > heldNow) {
    const between = bisectedLevel(ramp, heldNow, s.failedLevel);
    if (between !== null) {
      const next = levelTo(between, passed);
      return move(next, `level ${pct(level)} held, ${pct(s.failedLevel)} did not: trying ${pct(between)}`);
    }
    // settled below the limit, tried above again after a wait that grows each time it is found;
    // but a limit at the top is the pool's configured capacity, not one the ramp found (a level
    // there slips on a queue burst, and a 3 % slip costs 3 % of the work while it waits): retried at once
    const retryAt = underTheTop(s.failedLevel, heldNow, top)
      ? now
      : (s.nextStepUpAfter ?? now + ceilingRetryWaitMs(ramp.dwellMs, s.ceilingRetries));
    if (now < retryAt) {
      const next = settledHere(retryAt);
      if (s.settled) return { next, transitions: [] };
      return move(next, `settled at level ${pct(level)}: ${pct(s.failedLevel)} did not hold`, {
        nextStepUpAfter: retryAt,
      });
    }
  }
  // climb: nothing failed, or the wait above a limit is over (the limit is forgotten, not its retries)
  const retrying = s.failedLevel !== null;
  const learned = retrying ? Math.min(s.sustainedLevel ?? heldNow, heldNow) : s.sustainedLevel;
  // a ramp collapsed since the breaker last closed: no accelerated probing above the learned level
  const grown = grownLevel(ramp, heldNow, learned, ratio, s.failedRecoveries > 0);
  const saturated = saturatedGrowth(heldNow, grown, top);
  const stepAbove = Math.min(top, heldNow * (1 + BISECT_PRECISION));
  if (saturated && !retrying) {
    // latency says the provider is saturated here: a move this small is no move (and its short
    // windows judge noise); settle with one bisection step above as the limit, tried after the wait
    const retryAt = now + ceilingRetryWaitMs(ramp.dwellMs, s.ceilingRetries);
    const next = settledHere(retryAt, { failedLevel: stepAbove });
    return move(next, `settled at level ${pct(level)}: saturated (p95 ${ratio!.toFixed(2)}× the lowest)`, {
      nextStepUpAfter: retryAt,
    });
  }
  // after the wait, a step worth judging even while latency says saturated
  const to = saturated ? stepAbove : grown;
  const next = levelTo(to, { ...passed, failedLevel: null, nextStepUpAfter: null });
  const reason = retrying
    ? `level ${pct(level)} held after the wait: trying ${pct(to)} above the limit found`
    : `level ${pct(level)} held for ${ms(now - stepSince)}: ${pct(to)}`;
  return move(next, reason);
}

/** What a stored state knows of its provider's shedding (fields absent in older states read as nothing known). */
function shedKnowledge(s: GlobalBreakerState): ShedKnowledge {
  return {
    shedsCleanly: s.shedsCleanly === true,
    shedSeenLevel: s.shedSeenLevel ?? null,
    declarationRefuted: s.shedDeclarationRefuted === true,
  };
}

/**
 * The ramp settled below a limit that is the top itself, more than a bisection step under it (a
 * level within one step of the top keeps the wait: retrying it at once would flap at the top).
 */
export function underTheTop(failedLevel: number, held: number, top: number): boolean {
  return failedLevel >= top && held * (1 + BISECT_PRECISION) < top;
}

/**
 * The growth after `held` is under BISECT_PRECISION (latency inflated to where the growth is spent):
 * the provider is saturated at `held`, and a move that small would only be judged on noise.
 */
export function saturatedGrowth(held: number, grown: number, top: number): boolean {
  return grown < top && grown < held * (1 + BISECT_PRECISION);
}

/**
 * How long a level is watched before it is judged (a collapse acts at once): a dwell, or
 * SETTLED_WINDOW_DWELLS for a settled level and for a level tried between one that held and one
 * that failed (near the limit): a few failures in two seconds are noise there, and a level a few
 * per cent over the provider's capacity needs more than two seconds to build a queue that shows.
 */
export function judgingWindowMs(
  s: Pick<GlobalBreakerState, 'settled' | 'failedLevel'>,
  dwellMs: number,
): number {
  return s.settled || s.failedLevel !== null ? SETTLED_WINDOW_DWELLS * dwellMs : dwellMs;
}

/**
 * The end of a drain toward `landing`: its sample judged against `thresholds` (`gates`, the evidence
 * the move records) and where the ramp lands (`relanded`): null when the sample passed (or is too
 * thin to judge); else the lower landing sized from what the drain level delivered (landingLevel),
 * null too when that is not lower than `landing`. `thresholds`: the gates a step of this provider is
 * judged on (sheddingThresholds), without the latency-inflation gate: a drain's latency is the
 * queue the level above left behind.
 */
export function judgeDrain(
  ramp: PoolConfig['ramp'],
  thresholds: GateThresholds,
  landing: number,
  level: number,
  sample: RampSample,
): { gates: GateFigures; relanded: number | null } {
  const gates = explainGates(sample, thresholds, ramp.minSample);
  if (gates.outcome !== 'degrade' && gates.outcome !== 'collapse') return { gates, relanded: null };
  const lower = landingLevel(ramp, landing, deliveredLevel(level, sample.successes, sample.attempts));
  return { gates, relanded: lower < landing ? lower : null };
}

/** The level admitted while draining before landing on `to`: DRAIN_SHARE of it, never below the start level (unless `to` is). */
export function drainLevel(ramp: PoolConfig['ramp'], to: number): number {
  return Math.max(Math.min(to, startLevel(ramp)), to * DRAIN_SHARE);
}

/** Attempts a level's sample needs before a pass counts: USED_SHARE of a dwell at min(its rate, demand). */
export function usedEnough(
  pool: PoolConfig,
  step: number,
  level: number,
  demand: Record<TrafficClass, number> | undefined,
): number {
  let rate = 0;
  for (const [cls, budget] of Object.entries(stepBudget(pool, { step, level }))) {
    const wanted = demand ? (demand[cls] ?? 0) : Number.POSITIVE_INFINITY;
    rate += Math.min(budget.ratePerSec, Number.isFinite(wanted) && wanted >= 0 ? wanted : budget.ratePerSec);
  }
  return Math.floor(USED_SHARE * rate * (pool.ramp.dwellMs / 1000));
}

/**
 * A level whose p95 latency grew past `inflation` × the lowest of this recovery is queueing: the
 * provider is past its capacity before it fails calls, so the ramp counts it as degraded.
 */
function inflationGate(g: GateFigures, ratio: number | null, inflation: number): GateFigures {
  if (g.outcome !== 'pass' || ratio === null || !(ratio > inflation)) return g;
  return { ...g, outcome: 'degrade', failed: [...g.failed, 'latencyInflation'] };
}

/** "12.5 %" */
function pct(level: number): string {
  return `${Math.round(level * 1000) / 10} %`;
}

/** A duration in a reason: whole milliseconds, a tenth under 10 ms (an SDK's timer reads fractions). */
function ms(duration: number): string {
  return `${roundTo(duration, duration < 10 ? 1 : 0)} ms`;
}

export interface ProbeResultInput extends ProbeObservation {
  /** the epoch the token was granted in; a result of another epoch is stale and ignored */
  epoch?: number;
}

/** PROBING: enough passes → RAMPING at the start level; a failure → OPEN for a short probe interval; neutral → nothing. */
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
    // the provider is still down: probe again soon; only a collapsed ramp backs off
    const { next, cooldownMs } = open(
      s,
      now,
      pool,
      rng,
      s.failedRecoveries,
      false,
      probeIntervalMs(pool, rng),
    );
    const figures: TransitionFigures = {
      probe: { ...observed, verdict, probesPassed: s.probesPassed, probesToPass },
      cooldownMs,
      failedRecoveries: next.failedRecoveries,
    };
    const reason = `probe failed (${result.outcome}, ${ms(result.latencyMs)})`;
    return { next, transitions: [record(s, next, now, 'probe', reason, figures)] };
  }
  const probesPassed = s.probesPassed + 1;
  const figures: TransitionFigures = { probe: { ...observed, verdict, probesPassed, probesToPass } };
  if (probesPassed < probesToPass) {
    const next = { ...s, probesPassed };
    const reason = `probe passed (${probesPassed} of ${probesToPass})`;
    return { next, transitions: [record(s, next, now, 'probe', reason, figures)] };
  }
  const level = startLevel(pool.ramp);
  const next: GlobalBreakerState = {
    ...s,
    ...NO_RAMP,
    state: 'ramping',
    since: now,
    probesPassed,
    step: 0,
    level,
    stepSince: now,
    baselineLatencyMs: result.latencyMs > 0 ? result.latencyMs : null,
  };
  const reason = `${probesPassed} of ${probesToPass} probes passed: ramping from level ${pct(level)}`;
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
