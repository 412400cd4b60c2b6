import { describe, expect, it } from 'vitest';
import { classifyError, classifyResponse, classifyStatus, isResponseLike } from './Classify.js';

describe('classifyResponse', () => {
  it('classifies real fetch Response objects by status', () => {
    expect(classifyResponse(new Response('ok', { status: 200 }))).toEqual({
      outcome: 'success',
      retryAfterMs: null,
    });
    expect(classifyResponse(new Response('', { status: 503 }))).toEqual({
      outcome: 'overload',
      retryAfterMs: null,
    });
    expect(classifyResponse(new Response('', { status: 404 }))).toEqual({
      outcome: 'client_error',
      retryAfterMs: null,
    });
    expect(classifyResponse(new Response('', { status: 401 }))).toEqual({
      outcome: 'auth',
      retryAfterMs: null,
    });
  });

  it('reads Retry-After on a 429 (seconds and HTTP-date)', () => {
    const seconds = new Response('', { status: 429, headers: { 'retry-after': '3' } });
    expect(classifyResponse(seconds)).toEqual({ outcome: 'rate_limited', retryAfterMs: 3_000 });
    const now = Date.parse('2026-12-02T10:00:00Z');
    const dated = new Response('', {
      status: 429,
      headers: { 'retry-after': 'Wed, 02 Dec 2026 10:00:10 GMT' },
    });
    expect(classifyResponse(dated, { nowMs: now })).toEqual({
      outcome: 'rate_limited',
      retryAfterMs: 10_000,
    });
  });

  it('marks a slow success', () => {
    const res = new Response('ok', { status: 200 });
    expect(classifyResponse(res, { latencyMs: 3_000, slowThresholdMs: 2_000 }).outcome).toBe('slow');
  });
});

describe('classifyStatus / classifyError / isResponseLike', () => {
  it('re-use the core table', () => {
    expect(classifyStatus(529)).toBe('overload');
    expect(classifyError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('network');
    expect(classifyError(new DOMException('aborted', 'AbortError'))).toBe('cancelled');
  });

  it('recognises response-shaped values only', () => {
    expect(isResponseLike(new Response('x'))).toBe(true);
    expect(isResponseLike({ status: 200 })).toBe(false);
    expect(isResponseLike('200')).toBe(false);
  });
});
