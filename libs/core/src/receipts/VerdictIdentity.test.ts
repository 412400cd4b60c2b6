import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTED_STATES, type ReportedState } from '../wire.js';
import { canonicalize } from './Canonical.js';
import { identityDemand, signedEpoch, statementEvidence, verdictStatement } from './VerdictIdentity.js';

const who = { instanceId: 'i-1', group: 'g' };

describe('verdictStatement', () => {
  it('carries every evidence class and explicit nulls, whatever the heartbeat left out', () => {
    const s = verdictStatement(
      who,
      { dependency: 'llm', state: 'open', evidence: { attempts: 4, successes: 0, byClass: { overload: 4 } } },
      { seq: 3, epoch: 7 },
    );
    expect(s).toEqual({
      type: 'recloser.verdict/v1',
      instanceId: 'i-1',
      group: 'g',
      dependency: 'llm',
      state: 'open',
      evidence: {
        attempts: 4,
        successes: 0,
        byClass: { overload: 4, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
        latencyP95Ms: null,
        ttftP95Ms: null,
        queueAgeMs: null,
      },
      seq: 3,
      epoch: 7,
    });
  });

  it('property: the SDK signing and the controller re-deriving the same verdict agree byte for byte', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.nat(50), fc.option(fc.nat(60_000)), (a, s, o, p95) => {
        const shown = { attempts: a, successes: s, byClass: { overload: o }, latencyP95Ms: p95 };
        const signed = verdictStatement(
          who,
          { dependency: 'd', state: 'open', evidence: shown },
          { seq: 1, epoch: 2 },
        );
        // what the controller does with the statement it opened: normalise its evidence again
        const reread = { ...signed, evidence: statementEvidence(signed.evidence) };
        const sent = verdictStatement(
          who,
          { dependency: 'd', state: 'open', evidence: shown },
          { seq: 1, epoch: 2 },
        );
        expect(canonicalize(reread)).toBe(canonicalize(sent));
      }),
    );
  });
});

describe('identityDemand', () => {
  it('refuses only an unsigned locally open verdict where identity is required; ignores signatures where it is off', () => {
    const open: { state: ReportedState } = { state: 'open' };
    expect(identityDemand('required', open, false)).toBe('refuse');
    expect(identityDemand('required', { state: 'half_open' }, false)).toBe('refuse');
    expect(identityDemand('required', { state: 'closed' }, false)).toBe('accept');
    expect(identityDemand('optional', open, false)).toBe('accept');
    expect(identityDemand('off', open, true)).toBe('ignore');
    expect(identityDemand('optional', open, true)).toBe('check');
    expect(identityDemand('required', { state: 'closed' }, true)).toBe('check');
  });

  it('property: a signed verdict is never refused for being unsigned, and an off group never checks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('off', 'optional', 'required' as const),
        fc.constantFrom(...REPORTED_STATES),
        (m, st) => {
          expect(identityDemand(m, { state: st }, true)).not.toBe('refuse');
          expect(identityDemand('off', { state: st }, true)).toBe('ignore');
        },
      ),
    );
  });
});

describe('signedEpoch', () => {
  it('future above the breaker, stale below, current at it (edges)', () => {
    expect(signedEpoch(8, 7)).toBe('future');
    expect(signedEpoch(7, 7)).toBe('current');
    expect(signedEpoch(6, 7)).toBe('stale');
    expect(signedEpoch(0, 0)).toBe('current');
  });
});
