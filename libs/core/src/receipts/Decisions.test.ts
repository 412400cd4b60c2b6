import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quorumThreshold } from '../quorum/Quorum.js';
import { judgedGateThresholds } from '../ramp/Shedding.js';
import { fromBasisPoints } from './Canonical.js';
import { certifiedVerdictProblem, quorumCertificateProblem, rampStepProblem } from './Decisions.js';
import type { LogEntryStatement, QuorumCertificate, VerdictStatement } from './Statements.js';

const EVIDENCE = {
  attempts: 1,
  successes: 0,
  byClass: { overload: 1, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
  latencyP95Ms: null,
  ttftP95Ms: null,
  queueAgeMs: null,
};
function cert(
  live: number,
  open: number,
  fractionBps: number,
  minOpen: number,
  threshold: number,
): QuorumCertificate {
  return {
    type: 'recloser.quorum-certificate/v1',
    breakerId: 'b',
    group: 'g',
    dependency: 'd',
    epoch: 1,
    at: '',
    live,
    liveDigest: '',
    threshold,
    policy: { fractionBps, minOpen },
    identity: 'off',
    verdicts: Array.from({ length: open }, (_, i) => ({
      instanceId: `i${i}`,
      signed: false as const,
      state: 'open' as const,
      evidence: EVIDENCE,
    })),
  };
}

describe('quorumCertificateProblem', () => {
  it('accepts exactly the certificates whose K is core’s threshold of L and that hold ≥ K open verdicts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.nat(),
        fc.integer({ min: -2, max: 2 }),
        (live, bps, minOpen, o, dk) => {
          const k = quorumThreshold(live, { fraction: fromBasisPoints(bps), minOpen });
          const open = Math.min(live, o % (live + 1));
          const problem = quorumCertificateProblem(cert(live, open, bps, minOpen, k + dk));
          expect(problem === null).toBe(dk === 0 && open >= k);
        },
      ),
    );
  });

  it('names what is wrong', () => {
    expect(quorumCertificateProblem(cert(10, 4, 5000, 2, 5))).toBe('4 verdicts, fewer than K=5');
    const required = { ...cert(10, 5, 5000, 2, 5), identity: 'required' as const };
    expect(quorumCertificateProblem(required)).toMatch(/unsigned but the group requires signatures/);
    const closed = cert(10, 5, 5000, 2, 5);
    closed.verdicts[0] = { ...closed.verdicts[0]!, signed: false, state: 'closed', evidence: EVIDENCE };
    expect(quorumCertificateProblem(closed)).toMatch(/i0 is not locally open/);
  });
});

describe('certifiedVerdictProblem', () => {
  const signedIn = (epoch: number): VerdictStatement => ({
    type: 'recloser.verdict/v1',
    instanceId: 'i0',
    group: 'g',
    dependency: 'd',
    state: 'open',
    evidence: EVIDENCE,
    seq: 1,
    epoch,
  });
  const opened = { ...cert(3, 2, 5000, 2, 2), epoch: 5 }; // opened from epoch 4

  it('takes a verdict signed in the epoch the breaker opened from or one before it (grace); refuses older and later', () => {
    expect(certifiedVerdictProblem(opened, 'i0', signedIn(4))).toBeNull();
    expect(certifiedVerdictProblem(opened, 'i0', signedIn(3))).toBeNull();
    expect(certifiedVerdictProblem(opened, 'i0', signedIn(2))).toBe(
      'verdict of i0 was signed in epoch 2, not 4 or within 1 epoch before it (a replay)',
    );
    expect(certifiedVerdictProblem(opened, 'i0', signedIn(5))).toMatch(/signed in epoch 5, not 4/);
  });

  it('property: accepted exactly when the controller’s rule would have kept it (signedEpoch)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.nat(50), (epoch, v) => {
        const c = { ...opened, epoch };
        const ok = certifiedVerdictProblem(c, 'i0', signedIn(v)) === null;
        expect(ok).toBe(v <= epoch - 1 && epoch - 1 - v <= 1);
      }),
    );
  });
});

describe('rampStepProblem', () => {
  const gates = {
    minSuccessRate: 0.95,
    maxLatencyP95Ms: 2000,
    maxTtftP95Ms: 1500,
    maxQueueAgeMs: 5000,
    max429Rate: 0.02,
  };
  const entry = (
    outcome: string,
    successRate: number,
    failed: string[],
    level: number,
    to = 'ramping',
  ): LogEntryStatement => ({
    type: 'recloser.transition/v1',
    breakerId: 'b',
    group: 'g',
    dependency: 'd',
    seq: 2,
    prevHash: '',
    hash: '',
    from: 'ramping',
    to,
    epoch: 1,
    fromStep: 0,
    step: 1,
    actor: 'ramp',
    reason: '',
    formedBy: [],
    at: '',
    certificate: null,
    gateThresholds: gates,
    figures: {
      level,
      gates: {
        outcome,
        attempts: 50,
        minSample: 20,
        successRate,
        rate429: 0,
        latencyP95Ms: 100,
        ttftP95Ms: null,
        queueAgeMs: 0,
        failed,
      },
    },
  });
  it('a step up needs passing gates; a step down needs degraded ones; the failed set is re-derived', () => {
    expect(rampStepProblem(entry('pass', 1, [], 0.1), 0.05)).toBeNull();
    expect(rampStepProblem(entry('degrade', 0.9, ['successRate'], 0.05), 0.1)).toBeNull();
    expect(rampStepProblem(entry('degrade', 0.9, ['successRate'], 0.1), 0.05)).toMatch(
      /a step up .* did not pass/,
    );
    expect(rampStepProblem(entry('pass', 1, [], 0.05), 0.1)).toMatch(/a step down on gates that passed/);
    expect(rampStepProblem(entry('pass', 0.9, [], 0.1), 0.05)).toMatch(
      /gates failed are \[\] but the figures fail \[successRate\]/,
    );
    expect(rampStepProblem(entry('collapse', 0.6, ['successRate'], 0, 'open'), 0.1)).toMatch(
      /collapse with success rate 0.6/,
    );
    expect(rampStepProblem(entry('pass', 1, [], 1, 'closed'), 1)).toBeNull();
  });

  it('a provider judged as shedding cleanly fails the success rate at 97 %: verified against the thresholds it was judged by', () => {
    const shed = entry('degrade', 0.97, ['successRate'], 0.05);
    shed.figures = { ...shed.figures, shedsCleanly: true };
    // the log records judgedGateThresholds (transparency-log.service.ts), not the pool's own gates
    expect(
      rampStepProblem({ ...shed, gateThresholds: judgedGateThresholds(gates, shed.figures) }, 0.1),
    ).toBeNull();
    expect(rampStepProblem(shed, 0.1)).toMatch(/gates failed are \[successRate\] but the figures fail \[\]/);
  });
});
