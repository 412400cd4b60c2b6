import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GROUP_SCOPE } from '../scope/BreakerScope.js';
import type { Outcome } from '../wire.js';
import { breakerScopeFor, FAILURE_DOMAINS, outcomeDomain, type CallLabels } from './FailureDomain.js';

const ALL: CallLabels = { region: 'eu-west', endpoint: 'eu-west-1a', model: 'gpt-x', credentialId: 'key-7' };

describe('outcomeDomain', () => {
  it('401/403 speak about the credential', () => {
    expect(outcomeDomain({ outcome: 'auth', status: 401 }, ALL)).toEqual({
      domain: 'credential',
      scope: { kind: 'credential', value: 'key-7' },
    });
    expect(outcomeDomain({ outcome: 'auth', status: 403 }, ALL)).toMatchObject({ domain: 'credential' });
  });

  it('an auth failure on a call naming no credential moves nothing (never anything wider)', () => {
    expect(outcomeDomain({ outcome: 'auth', status: 401 }, { region: 'eu-west' })).toBeNull();
  });

  it('model-not-found and a model overload speak about the model', () => {
    expect(
      outcomeDomain({ outcome: 'client_error', status: 404, errorCode: 'model_not_found' }, ALL),
    ).toEqual({
      domain: 'model',
      scope: { kind: 'model', value: 'gpt-x' },
    });
    expect(
      outcomeDomain({ outcome: 'overload', status: 503, errorCode: 'model_overloaded' }, ALL),
    ).toMatchObject({
      domain: 'model',
    });
  });

  it('a quota 429 speaks about the pool', () => {
    expect(outcomeDomain({ outcome: 'rate_limited', status: 429 }, ALL)).toEqual({ domain: 'pool' });
  });

  it("an endpoint's 5xx, timeouts and network failures speak about the endpoint, else its region, else the pool", () => {
    expect(outcomeDomain({ outcome: 'overload', status: 502 }, ALL)).toMatchObject({ domain: 'endpoint' });
    expect(outcomeDomain({ outcome: 'network' }, { region: 'us-east' })).toEqual({
      domain: 'region',
      scope: { kind: 'region', value: 'us-east' },
    });
    expect(outcomeDomain({ outcome: 'slow' }, {})).toEqual({ domain: 'pool' });
  });

  it('success, client errors and cancellations say nothing', () => {
    for (const outcome of ['success', 'client_error', 'cancelled'] as Outcome[])
      expect(outcomeDomain({ outcome }, ALL)).toBeNull();
  });
});

describe('breakerScopeFor', () => {
  const endpointFault = outcomeDomain({ outcome: 'network' }, ALL);

  it("widens an endpoint fault to the pool's declared domain", () => {
    expect(breakerScopeFor(endpointFault, 'endpoint', ALL)).toEqual({
      kind: 'endpoint',
      value: 'eu-west-1a',
    });
    expect(breakerScopeFor(endpointFault, 'region', ALL)).toEqual({ kind: 'region', value: 'eu-west' });
    expect(breakerScopeFor(endpointFault, 'provider', ALL)).toEqual(GROUP_SCOPE);
  });

  it('a quota 429 moves the group, whatever the pool declares', () => {
    for (const d of FAILURE_DOMAINS) expect(breakerScopeFor({ domain: 'pool' }, d, ALL)).toEqual(GROUP_SCOPE);
  });

  it('property: a credential failure moves only that credential, whatever the pool declares', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILURE_DOMAINS),
        fc.constantFrom(401, 403),
        fc.stringMatching(/^[a-z0-9-]{1,20}$/),
        (declared, status, credentialId) => {
          const labels = { ...ALL, credentialId };
          const scope = breakerScopeFor(outcomeDomain({ outcome: 'auth', status }, labels), declared, labels);
          expect(scope).toEqual({ kind: 'credential', value: credentialId });
        },
      ),
    );
  });

  it('property: an infrastructure fault never lands narrower than the pool declares, nor on a credential or model', () => {
    const width = { endpoint: 0, region: 1, group: 2 } as Record<string, number>;
    const declaredWidth = { endpoint: 0, model: 0, credential: 0, region: 1, provider: 2 } as Record<
      string,
      number
    >;
    fc.assert(
      fc.property(
        fc.constantFrom(...FAILURE_DOMAINS),
        fc.constantFrom<Outcome>('overload', 'network', 'slow'),
        fc.record({
          region: fc.option(fc.constant('eu-west'), { nil: undefined }),
          endpoint: fc.option(fc.constant('e1'), { nil: undefined }),
        }),
        (declared, outcome, partial) => {
          const labels: CallLabels = {
            ...(partial.region ? { region: partial.region } : {}),
            ...(partial.endpoint ? { endpoint: partial.endpoint } : {}),
          };
          const scope = breakerScopeFor(outcomeDomain({ outcome }, labels), declared, labels);
          expect(scope).not.toBeNull();
          expect(['credential', 'model']).not.toContain(scope!.kind);
          expect(width[scope!.kind]).toBeGreaterThanOrEqual(Math.min(declaredWidth[declared]!, 2));
        },
      ),
    );
  });
});
