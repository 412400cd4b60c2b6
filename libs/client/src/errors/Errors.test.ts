import { describe, expect, it } from 'vitest';
import { BreakerOpenError, TransportError, isBreakerOpenError, isTransportError } from './Errors.js';

describe('branded errors', () => {
  it('recognises a BreakerOpenError by its brand and carries retryAfterMs', () => {
    const err = new BreakerOpenError('llm', 'paused', 1_000);
    expect(isBreakerOpenError(err)).toBe(true);
    expect(err.retryAfterMs).toBe(1_000);
    expect(err.message).toContain('llm');
    expect(err.name).toBe('BreakerOpenError');
  });

  it('recognises an error from another copy of the SDK (same global symbol, different class)', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('@recloser/client/BreakerOpenError')]: true,
    });
    expect(isBreakerOpenError(foreign)).toBe(true);
  });

  it('does not mistake other errors for each other', () => {
    expect(isBreakerOpenError(new Error('x'))).toBe(false);
    expect(isBreakerOpenError(null)).toBe(false);
    expect(isBreakerOpenError(new TransportError('down', null))).toBe(false);
    expect(isTransportError(new TransportError('down', 503, 2_000))).toBe(true);
    expect(isTransportError(new BreakerOpenError('d', 'rate', 1))).toBe(false);
  });
});
