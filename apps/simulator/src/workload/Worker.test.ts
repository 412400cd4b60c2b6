import { describe, expect, it } from 'vitest';
import { answerOutcome } from './Worker.js';

describe('answerOutcome (Worker and the S6 QueueConsumer)', () => {
  it('status 0 is network; a 200 answered past the slow threshold is slow, at it still success', () => {
    expect(answerOutcome({ status: 0, latencyMs: 1 }, 10_000)).toBe('network');
    expect(answerOutcome({ status: 200, latencyMs: 10_000 }, 10_000)).toBe('success');
    expect(answerOutcome({ status: 200, latencyMs: 10_001 }, 10_000)).toBe('slow');
    expect(answerOutcome({ status: 503, latencyMs: 5 }, 10_000)).toBe('overload');
  });
});
