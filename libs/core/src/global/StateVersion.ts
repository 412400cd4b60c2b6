// A breaker's global state is stored as JSON (breakers.global_state) and outlives the code that
// wrote it: each stored state carries its schema version `v` and is upgraded here when read, so
// the lifecycle functions only ever see the current shape. Versions:
//   1: states stored before `v` existed; drainingUntil and quorumQuietUntil may be absent.
//   2: `v` written on every save; every field present.
//   3: the ramp is a level (fraction of capacity) found by the ramp, not an index into pool steps:
//      level, heldLevel, failedLevel, baselineLatencyMs, sustainedLevel replace heldAtStep, ceiling
//      and lastPassedStep. A version-2 RAMPING state resumes at the pool's start level. Later
//      gained shedsCleanly and shedSeenLevel (optional: read as false and null where absent), then
//      shedDeclarationRefuted (optional: read as false).
import type { GlobalState } from '../wire.js';
import type { GlobalBreakerState } from './GlobalBreaker.js';

export const GLOBAL_STATE_VERSION = 3;

const GLOBAL_STATES: readonly GlobalState[] = ['closed', 'open', 'probing', 'ramping'];

/**
 * A stored global state in the current shape (version GLOBAL_STATE_VERSION, every field present).
 * Idempotent. Throws on what is not a global state, and on a version newer than this code knows
 * (a newer replica wrote it: reading it as ours would drop what we do not understand).
 */
export function upgradeGlobalState(raw: unknown): GlobalBreakerState {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`global state: expected a JSON object, got ${raw === null ? 'null' : typeof raw}`);
  const stored = raw as Partial<GlobalBreakerState> & Record<string, unknown>;
  const v = stored.v ?? 1;
  if (!Number.isInteger(v) || v < 1)
    throw new Error(`global state: version must be a positive integer, got ${JSON.stringify(stored.v)}`);
  if (v > GLOBAL_STATE_VERSION)
    throw new Error(
      `global state: stored with schema version ${v}, newer than this controller understands (${GLOBAL_STATE_VERSION}); run the newer controller`,
    );
  if (!GLOBAL_STATES.includes(stored.state as GlobalState))
    throw new Error(`global state: unknown state ${JSON.stringify(stored.state)}`);
  if (typeof stored.epoch !== 'number') throw new Error('global state: epoch is not a number');
  const { heldAtStep: _h, ceiling: _c, lastPassedStep: _l, ...rest } = stored;
  return {
    ...(rest as GlobalBreakerState),
    // v1 → v2: fields added after the first stored states read as null (as GlobalBreaker.ts says)
    drainingUntil: stored.drainingUntil ?? null,
    drainTo: stored.drainTo ?? null,
    quorumQuietUntil: stored.quorumQuietUntil ?? null,
    shedsCleanly: stored.shedsCleanly ?? false,
    shedSeenLevel: stored.shedSeenLevel ?? null,
    shedDeclarationRefuted: stored.shedDeclarationRefuted ?? false,
    // v2 → v3: the ramp's level and what it found (a v2 ramp resumes at the start level)
    level: stored.level ?? null,
    heldLevel: stored.heldLevel ?? null,
    failedLevel: stored.failedLevel ?? null,
    baselineLatencyMs: stored.baselineLatencyMs ?? null,
    sustainedLevel: stored.sustainedLevel ?? null,
    ceilingRetries: stored.ceilingRetries ?? 0,
    nextStepUpAfter: stored.nextStepUpAfter ?? null,
    v: GLOBAL_STATE_VERSION,
  };
}

/** The state as it is written: stamped with the current version. */
export function stampGlobalState(state: GlobalBreakerState): GlobalBreakerState {
  return { ...state, v: GLOBAL_STATE_VERSION };
}
