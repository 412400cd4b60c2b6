import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../wire.js';
import {
  DEFAULT_CREDENTIAL_POLICY as P,
  FRESH_CREDENTIAL,
  isCredentialKnownBad,
  pickCredential,
  recordCredentialOutcome,
  type CredentialState,
} from './CredentialHealth.js';

const run = (outcomes: Outcome[], at = 0): CredentialState =>
  outcomes.reduce((s, o) => recordCredentialOutcome(s, o, at, P), FRESH_CREDENTIAL);

describe('credential health', () => {
  it('is known bad after two auth failures in a row, until the cooldown: bad at T-1 ms, usable at T', () => {
    const one = run(['auth']);
    expect(isCredentialKnownBad(one, 0)).toBe(false);
    const two = run(['auth', 'auth'], 1000);
    expect(isCredentialKnownBad(two, 1000 + P.cooldownMs - 1)).toBe(true);
    expect(isCredentialKnownBad(two, 1000 + P.cooldownMs)).toBe(false);
  });

  it('a success in between resets the count; a failed trial after the cooldown renews the wait', () => {
    expect(isCredentialKnownBad(run(['auth', 'success', 'auth']), 0)).toBe(false);
    const bad = run(['auth', 'auth'], 0);
    const trialFailed = recordCredentialOutcome(bad, 'auth', P.cooldownMs, P);
    expect(isCredentialKnownBad(trialFailed, P.cooldownMs + 1)).toBe(true);
    expect(
      isCredentialKnownBad(recordCredentialOutcome(bad, 'success', P.cooldownMs, P), P.cooldownMs + 1),
    ).toBe(false);
  });

  it('outcomes that speak about the dependency (overload, network, 429, slow) leave the credential as it is', () => {
    const bad = run(['auth', 'auth']);
    for (const o of ['overload', 'network', 'rate_limited', 'slow', 'client_error', 'cancelled'] as Outcome[])
      expect(recordCredentialOutcome(bad, o, 5, P)).toBe(bad);
  });

  it('property: the picked credential is never known bad, and it is null only when every one is', () => {
    const outcome = fc.constantFrom<Outcome>('success', 'auth', 'overload', 'network');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), outcome), { maxLength: 30 }),
        fc.integer({ min: 0, max: 2 * P.cooldownMs }),
        (calls, now) => {
          const ids = ['k0', 'k1', 'k2', 'k3'];
          const states = new Map<string, CredentialState>();
          for (const [k, o] of calls)
            states.set(ids[k]!, recordCredentialOutcome(states.get(ids[k]!) ?? FRESH_CREDENTIAL, o, 0, P));
          const stateOf = (id: string) => states.get(id) ?? FRESH_CREDENTIAL;
          const picked = pickCredential(ids, stateOf, now);
          if (picked === null) expect(ids.every((id) => isCredentialKnownBad(stateOf(id), now))).toBe(true);
          else expect(isCredentialKnownBad(stateOf(picked), now)).toBe(false);
        },
      ),
    );
  });
});
