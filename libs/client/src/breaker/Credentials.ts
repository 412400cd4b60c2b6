// The instance's view of its credentials for one dependency: a credential's own breaker per
// credential id (core CredentialHealth), fed by the calls labelled with that id. The id names the
// credential; the secret never reaches the SDK's state, its heartbeats or its events.
import {
  DEFAULT_CREDENTIAL_POLICY,
  FRESH_CREDENTIAL,
  isCredentialKnownBad,
  pickCredential,
  recordCredentialOutcome,
  type Clock,
  type CredentialPolicy,
  type CredentialState,
  type Outcome,
} from '@recloser/core';

/** Credentials remembered at most (ids beyond it are not tracked: they count as usable). */
const MAX_CREDENTIALS = 256;

export class Credentials {
  private readonly states = new Map<string, CredentialState>();

  constructor(
    private readonly clock: Clock,
    private readonly policy: CredentialPolicy = DEFAULT_CREDENTIAL_POLICY,
  ) {}

  record(credentialId: string, outcome: Outcome): void {
    const before = this.states.get(credentialId);
    if (!before && this.states.size >= MAX_CREDENTIALS) return;
    const after = recordCredentialOutcome(before ?? FRESH_CREDENTIAL, outcome, this.clock.now(), this.policy);
    if (after !== before) this.states.set(credentialId, after);
  }

  knownBad(credentialId: string): boolean {
    const s = this.states.get(credentialId);
    return s !== undefined && isCredentialKnownBad(s, this.clock.now());
  }

  /** The first of `ids` not known bad, or null. */
  pick(ids: readonly string[]): string | null {
    return pickCredential(ids, (id) => this.states.get(id) ?? FRESH_CREDENTIAL, this.clock.now());
  }
}
