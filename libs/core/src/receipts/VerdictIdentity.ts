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
 * A signed verdict by the epoch it was signed in against the breaker's: `future` is refused (no
 * instance can have heard of it); `stale` (the breaker moved while the heartbeat was in flight)
 * stands but certifies nothing now, so it is not kept; `current` is kept for certificates.
 */
export function signedEpoch(signedIn: number, current: number): 'future' | 'stale' | 'current' {
  if (signedIn > current) return 'future';
  return signedIn < current ? 'stale' : 'current';
}
