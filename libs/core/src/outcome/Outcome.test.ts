import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../wire.js';
import {
  classifyErrorCode,
  classifyHttpStatus,
  emptyEvidence,
  isSystemic,
  parseRetryAfterMs,
} from './Outcome.js';
import { ALL_OUTCOMES } from './allOutcomes.test-support.js';

describe('classifyHttpStatus: the classification table of issue 3', () => {
  const table: [number, Outcome][] = [
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [304, 'success'],
    [400, 'client_error'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'client_error'],
    [409, 'client_error'],
    [422, 'client_error'],
    [429, 'rate_limited'],
    [500, 'overload'],
    [501, 'overload'],
    [502, 'overload'],
    [503, 'overload'],
    [504, 'overload'],
    [529, 'overload'],
  ];
  it.each(table)('%i → %s', (status, expected) => {
    expect(classifyHttpStatus(status)).toBe(expected);
  });

  it('marks a success slower than the threshold as slow, at threshold+1 ms but not at the threshold', () => {
    expect(classifyHttpStatus(200, { latencyMs: 2_000, slowThresholdMs: 2_000 })).toBe('success');
    expect(classifyHttpStatus(200, { latencyMs: 2_001, slowThresholdMs: 2_000 })).toBe('slow');
    expect(classifyHttpStatus(200, { latencyMs: 1_999, slowThresholdMs: 2_000 })).toBe('success');
    expect(classifyHttpStatus(503, { latencyMs: 9_999, slowThresholdMs: 2_000 })).toBe('overload');
  });

  it('classifies every 4xx other than 401/403/429 as client_error, which is never systemic', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 499 }).filter((s) => ![401, 403, 429].includes(s)),
        (status) => {
          const outcome = classifyHttpStatus(status);
          expect(outcome).toBe('client_error');
          expect(isSystemic(outcome)).toBe(false);
        },
      ),
    );
  });

  it('classifies every 5xx as systemic overload', () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 599 }), (status) => {
        expect(classifyHttpStatus(status)).toBe('overload');
      }),
    );
  });
});

describe('classifyErrorCode', () => {
  const withCode = (code: string): Error => Object.assign(new Error(code), { code });
  const named = (name: string): Error => Object.assign(new Error(name), { name });

  const table: [string, unknown, Outcome][] = [
    ['AbortError', named('AbortError'), 'cancelled'],
    ['ABORT_ERR code', withCode('ABORT_ERR'), 'cancelled'],
    ['TimeoutError', named('TimeoutError'), 'overload'],
    ['ECONNREFUSED', withCode('ECONNREFUSED'), 'network'],
    ['ECONNRESET', withCode('ECONNRESET'), 'network'],
    ['ETIMEDOUT', withCode('ETIMEDOUT'), 'network'],
    ['EAI_AGAIN', withCode('EAI_AGAIN'), 'network'],
    ['ENOTFOUND', withCode('ENOTFOUND'), 'network'],
    ['EPIPE', withCode('EPIPE'), 'network'],
    ['UND_ERR_SOCKET', withCode('UND_ERR_SOCKET'), 'network'],
    ['UND_ERR_CONNECT_TIMEOUT', withCode('UND_ERR_CONNECT_TIMEOUT'), 'network'],
    [
      'fetch failed with an ECONNREFUSED cause',
      new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') }),
      'network',
    ],
    ['an error carrying status 503', Object.assign(new Error('x'), { status: 503 }), 'overload'],
    ['an error carrying statusCode 429', Object.assign(new Error('x'), { statusCode: 429 }), 'rate_limited'],
    ['an error carrying status 400', Object.assign(new Error('x'), { status: 400 }), 'client_error'],
    ['a plain TypeError (a bug in the caller)', new TypeError('x is undefined'), 'client_error'],
    ['an unknown Error', new Error('boom'), 'overload'],
    ['a thrown string', 'boom', 'overload'],
    ['null', null, 'overload'],
  ];
  it.each(table)('%s', (_label, err, expected) => {
    expect(classifyErrorCode(err)).toBe(expected);
  });
});

describe('isSystemic', () => {
  it('is true exactly for overload, network and slow', () => {
    expect(ALL_OUTCOMES.filter(isSystemic)).toEqual(['slow', 'overload', 'network']);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-12-02T10:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1_500);
  });
  it('reads an HTTP-date relative to now, never negative', () => {
    expect(parseRetryAfterMs('Wed, 02 Dec 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 02 Dec 2026 09:59:00 GMT', now)).toBe(0);
  });
  it('returns null for absent or invalid values', () => {
    expect(parseRetryAfterMs(null, now)).toBeNull();
    expect(parseRetryAfterMs(undefined, now)).toBeNull();
    expect(parseRetryAfterMs('', now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
  });
});

describe('emptyEvidence', () => {
  it('has zero counts for every class and a fresh object each time', () => {
    const a = emptyEvidence();
    expect(a.attempts).toBe(0);
    expect(Object.values(a.byClass).every((n) => n === 0)).toBe(true);
    a.byClass.overload = 5;
    expect(emptyEvidence().byClass.overload).toBe(0);
  });
});
