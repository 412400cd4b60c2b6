import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateQuorum, quorumCertificateProblem } from '@recloser/core';
import type { VerdictRow } from '@recloser/control';
import { quorumCertificate } from './quorum-certificate.js';

const row = (instanceId: string, open: boolean): VerdictRow => ({
  instanceId,
  region: 'eu-west',
  state: open ? 'open' : 'closed',
  lastSeenAt: 1000,
  openSince: open ? 900 : null,
  evidence: {
    attempts: 1,
    successes: open ? 0 : 1,
    byClass: { overload: open ? 1 : 0, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
    latencyP95Ms: null,
    ttftP95Ms: null,
    queueAgeMs: null,
  },
  demand: {},
  reportedSince: null,
});

describe('quorumCertificate', () => {
  it('a certificate of what core decided passes the verifier’s arithmetic, whatever the fraction', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.nat(),
        fc.oneof(
          fc.double({ min: 0.01, max: 1, noNaN: true }),
          // just below a boundary j/L, where rounding to basis points would move K
          fc
            .tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }))
            .map(([j, l]) => Math.min(1, Math.max(0.01, Math.min(j, l) / l - 1e-7))),
        ),
        fc.integer({ min: 1, max: 5 }),
        (live, o, fraction, minOpen) => {
          const rows = Array.from({ length: live }, (_, i) =>
            row(`i${String(i).padStart(3, '0')}`, i < o % (live + 1)),
          );
          const d = evaluateQuorum(rows, {
            now: 1000,
            heartbeatTtlMs: 500,
            policy: { fraction, minOpen },
            learningUntil: 0,
          });
          if (!d.reached) return;
          const c = quorumCertificate({
            breaker: { id: 'b', group: 'g', dependency: 'd' },
            epoch: 1,
            at: 1000,
            rows,
            formedBy: d.formedBy,
            threshold: d.threshold,
            policy: { fraction, minOpen },
            identity: 'off',
          });
          expect(quorumCertificateProblem(c)).toBeNull();
          expect(c.verdicts.every((v) => !v.signed)).toBe(true);
        },
      ),
    );
  });

  it('carries the fraction in basis points, and exactly only when they would round it', () => {
    const rows = [row('a', true), row('b', true), row('c', false)];
    const base = {
      breaker: { id: 'b', group: 'g', dependency: 'd' },
      epoch: 1,
      at: 0,
      rows,
      formedBy: ['a', 'b'],
      threshold: 2,
      identity: 'off' as const,
    };
    expect(quorumCertificate({ ...base, policy: { fraction: 0.5, minOpen: 2 } }).policy).toEqual({
      fractionBps: 5000,
      minOpen: 2,
    });
    expect(quorumCertificate({ ...base, policy: { fraction: 1 / 3, minOpen: 1 } }).policy).toEqual({
      fractionBps: 3333,
      minOpen: 1,
      fraction: 1 / 3,
    });
  });
});
