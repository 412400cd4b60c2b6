// A credential's own breaker. A 401/403 says the credential is bad, not the dependency: it moves
// this credential's state and nothing else (the dependency's breaker never counts auth failures).
// After `failuresToOpen` auth failures in a row the credential is known bad: nothing may use it —
// in particular no probe, whose one call must say something about the dependency — until
// `cooldownMs` has passed (a rotation may have fixed it); then one trial call may use it: a success
// closes it, another auth failure renews the wait.
import type { Outcome } from '../wire.js';

export interface CredentialPolicy {
  failuresToOpen: number;
  cooldownMs: number;
}

export const DEFAULT_CREDENTIAL_POLICY: CredentialPolicy = { failuresToOpen: 2, cooldownMs: 60_000 };

export interface CredentialState {
  /** auth failures in a row */
  failures: number;
  /** set while known bad: no use before this time */
  badUntil: number | null;
}

export const FRESH_CREDENTIAL: CredentialState = Object.freeze({ failures: 0, badUntil: null });

/** The credential's state after one call that used it. Outcomes other than auth or success leave it. */
export function recordCredentialOutcome(
  state: CredentialState,
  outcome: Outcome,
  now: number,
  policy: CredentialPolicy,
): CredentialState {
  if (outcome === 'success') return FRESH_CREDENTIAL;
  if (outcome !== 'auth') return state;
  const failures = state.failures + 1;
  const bad = failures >= policy.failuresToOpen || state.badUntil !== null;
  return { failures, badUntil: bad ? now + policy.cooldownMs : null };
}

/** Known bad: no call, and no probe, may use it now. */
export function isCredentialKnownBad(state: CredentialState, now: number): boolean {
  return state.badUntil !== null && now < state.badUntil;
}

/**
 * The credential a call (or a probe) should use: the first of `ids`, in the caller's order of
 * preference, not known bad; null when every one is.
 */
export function pickCredential(
  ids: readonly string[],
  stateOf: (id: string) => CredentialState,
  now: number,
): string | null {
  for (const id of ids) if (!isCredentialKnownBad(stateOf(id), now)) return id;
  return null;
}
