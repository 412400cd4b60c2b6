// What an instance signs about one verdict, and how the controller treats a verdict by its group's
// identity mode and the epoch it was signed in: one place for the SDK that signs and the controller
// that checks, so the two cannot drift.
import { isLocallyOpen } from '../quorum/Quorum.js';
import { EVIDENCE_CLASSES, type BreakerVerdict, type Evidence } from '../wire.js';
import type { IdentityMode, VerdictStatement } from './Statements.js';

/** Evidence as a heartbeat may show it: classes and figures it did not count may be absent. */
type EvidenceShown = Pick<Evidence, 'attempts' | 'successes'> & {
  byClass?: Partial<Evidence['byClass']> | undefined;
  latencyP95Ms?: number | null | undefined;
  ttftP95Ms?: number | null | undefined;
  queueAgeMs?: number | null | undefined;
};

/** Evidence as a statement carries it: every class present (absent ones count zero), nulls explicit. */
export function statementEvidence(e: EvidenceShown): Evidence {
  const byClass: Partial<Evidence['byClass']> = e.byClass ?? {};
  return {
    attempts: e.attempts,
    successes: e.successes,
    byClass: Object.fromEntries(EVIDENCE_CLASSES.map((c) => [c, byClass[c] ?? 0])) as Evidence['byClass'],
    latencyP95Ms: e.latencyP95Ms ?? null,
    ttftP95Ms: e.ttftP95Ms ?? null,
    queueAgeMs: e.queueAgeMs ?? null,
  };
}

/** The statement an instance signs for its verdict on one breaker. */
export function verdictStatement(
  instance: { instanceId: string; group: string },
  verdict: Pick<BreakerVerdict, 'dependency' | 'state'> & { evidence: EvidenceShown },
  signed: { seq: number; epoch: number },
): VerdictStatement {
  return {
    type: 'recloser.verdict/v1',
    instanceId: instance.instanceId,
    group: instance.group,
    dependency: verdict.dependency,
    state: verdict.state,
    evidence: statementEvidence(verdict.evidence),
    seq: signed.seq,
    epoch: signed.epoch,
  };
}

/**
 * What the controller does with one verdict of a heartbeat, by the group's identity mode:
 * `refuse` an unsigned locally open verdict where identity is required; `ignore` a signature where
 * identity is off; `check` a signature otherwise; `accept` an unsigned verdict otherwise.
 */
export function identityDemand(
  mode: IdentityMode,
  verdict: Pick<BreakerVerdict, 'state'>,
  signed: boolean,
): 'refuse' | 'ignore' | 'check' | 'accept' {
  if (!signed) return mode === 'required' && isLocallyOpen(verdict.state) ? 'refuse' : 'accept';
  return mode === 'off' ? 'ignore' : 'check';
}

/**
 * How far behind its breaker a signed verdict may be and still stand: the breaker moved while the
 * heartbeat was in flight (the instance signed the epoch of the last plan it had). One epoch.
 */
export const EPOCH_GRACE = 1;

/** A signed verdict's epoch against its breaker's. */
export type SignedEpoch = 'future' | 'current' | 'grace' | 'expired';

/**
 * A signed verdict by the epoch it was signed in against the breaker's: `future` is refused (no
 * instance can have heard of it); `current` is kept for certificates; `grace` (at most EPOCH_GRACE
 * behind: the breaker moved while the heartbeat was in flight) is kept and counted like a current
 * one; `expired` (further behind: a stale or replayed verdict) is refused, naming the field.
 */
export function signedEpoch(signedIn: number, current: number): SignedEpoch {
  if (signedIn > current) return 'future';
  if (signedIn === current) return 'current';
  return current - signedIn <= EPOCH_GRACE ? 'grace' : 'expired';
}

/** Whether a signed verdict so judged stands: stored at the controller, counted in a certificate. */
export function keptSignedEpoch(when: SignedEpoch): when is 'current' | 'grace' {
  return when === 'current' || when === 'grace';
}

/**
 * The breaker whose epoch a signed verdict names, among those the instance may have followed when
 * it signed — the one it follows now first, then the other (its group's or its region's: core
 * followedScope switches between them as a region opens or closes): the first that keeps it
 * (current or within grace). Else refused, judged against the first.
 */
export function signedBreaker<B extends { epoch: number }>(
  signedIn: number,
  candidates: readonly B[],
): { breaker: B | null; when: SignedEpoch; current: number } {
  const judged = candidates.map((breaker) => ({ breaker, when: signedEpoch(signedIn, breaker.epoch) }));
  const chosen = judged.find((j) => keptSignedEpoch(j.when)) ?? judged[0];
  if (!chosen) return { breaker: null, when: signedEpoch(signedIn, 0), current: 0 }; // no breaker yet: epoch 0
  return { breaker: chosen.breaker, when: chosen.when, current: chosen.breaker.epoch };
}

/** The 4xx message of a verdict refused for its epoch (the SDK reads the breaker's epoch back from it). */
export function epochRefusal(field: string, signedIn: number, current: number): string {
  const why =
    signedIn > current
      ? 'no instance can have heard of it'
      : `more than ${EPOCH_GRACE} epoch behind: a stale or replayed verdict`;
  return `${field}: signed for epoch ${signedIn} but the breaker is in epoch ${current} (${why})`;
}

/** The verdict index and the breaker's epoch named by an epochRefusal message; null for any other message. */
export function refusedEpoch(message: string): { index: number; epoch: number } | null {
  const m = /breakers\.(\d+)\.envelope: signed for epoch \d+ but the breaker is in epoch (\d+)/.exec(message);
  return m ? { index: Number(m[1]), epoch: Number(m[2]) } : null;
}
