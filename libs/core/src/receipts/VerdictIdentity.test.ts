import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTED_STATES, type ReportedState } from '../wire.js';
import { canonicalize } from './Canonical.js';
import {
  EPOCH_GRACE,
  epochRefusal,
  identityDemand,
  keptSignedEpoch,
  refusedEpoch,
  signedBreaker,
  signedEpoch,
  statementEvidence,
  verdictStatement,
} from './VerdictIdentity.js';

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
  it('future above the breaker, current at it, grace one behind, expired further (edges)', () => {
    expect(signedEpoch(8, 7)).toBe('future');
    expect(signedEpoch(7, 7)).toBe('current');
    expect(signedEpoch(6, 7)).toBe('grace');
    expect(signedEpoch(5, 7)).toBe('expired');
    expect(signedEpoch(0, 0)).toBe('current');
    expect(signedEpoch(0, 1)).toBe('grace');
    expect(signedEpoch(0, 2)).toBe('expired');
    expect(EPOCH_GRACE).toBe(1);
  });

  it('property: kept exactly when signed in the breaker’s epoch or at most EPOCH_GRACE before it', () => {
    fc.assert(
      fc.property(fc.nat(1_000), fc.nat(1_000), (signedIn, current) => {
        const when = signedEpoch(signedIn, current);
        expect(keptSignedEpoch(when)).toBe(signedIn <= current && current - signedIn <= EPOCH_GRACE);
        expect(when === 'future').toBe(signedIn > current);
      }),
    );
  });
});

describe('signedBreaker', () => {
  const group = { id: 'g', epoch: 4 };
  const region = { id: 'r', epoch: 1 };

  it('prefers the breaker followed now, then the other one it may have followed', () => {
    expect(signedBreaker(1, [region, group])).toEqual({ breaker: region, when: 'current', current: 1 });
    // signed while it still followed the group (the region opened meanwhile)
    expect(signedBreaker(4, [region, group])).toEqual({ breaker: group, when: 'current', current: 4 });
    expect(signedBreaker(3, [region, group])).toEqual({ breaker: group, when: 'grace', current: 4 });
    // grace at the followed breaker wins over current at the other one
    expect(
      signedBreaker(0, [
        { id: 'a', epoch: 1 },
        { id: 'b', epoch: 0 },
      ]),
    ).toMatchObject({
      breaker: { id: 'a' },
      when: 'grace',
    });
  });

  it('refuses against the followed breaker: future or expired at every candidate', () => {
    expect(signedBreaker(9, [region, group])).toEqual({ breaker: region, when: 'future', current: 1 });
    expect(signedBreaker(2, [{ id: 'x', epoch: 7 }, group])).toEqual({
      breaker: { id: 'x', epoch: 7 },
      when: 'expired',
      current: 7,
    });
    expect(signedBreaker(0, [])).toEqual({ breaker: null, when: 'current', current: 0 });
    expect(signedBreaker(1, [])).toEqual({ breaker: null, when: 'future', current: 0 });
  });

  it('property: what it keeps is kept by signedEpoch at the breaker it names', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.array(fc.nat(20), { maxLength: 3 }), (signedIn, epochs) => {
        const r = signedBreaker(
          signedIn,
          epochs.map((epoch) => ({ epoch })),
        );
        expect(r.when).toBe(signedEpoch(signedIn, r.current));
        const keptSomewhere = epochs.some((e) => keptSignedEpoch(signedEpoch(signedIn, e)));
        if (epochs.length > 0) expect(keptSignedEpoch(r.when)).toBe(keptSomewhere);
      }),
    );
  });
});

describe('epochRefusal / refusedEpoch', () => {
  it('names the field and the breaker’s epoch, and the SDK reads it back', () => {
    const expired = epochRefusal('breakers.2.envelope', 3, 7);
    expect(expired).toMatch(
      /^breakers\.2\.envelope: signed for epoch 3 but the breaker is in epoch 7 \(more than 1 epoch behind/,
    );
    expect(refusedEpoch(`POST /v1/heartbeats: 409 ${expired}`)).toEqual({ index: 2, epoch: 7 });
    expect(epochRefusal('breakers.0.envelope', 9, 1)).toMatch(/no instance can have heard of it/);
    expect(refusedEpoch('breakers.0.envelope: sequence number 3 was already used')).toBeNull();
  });
});
