import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATES } from '../pool/PoolDefaults.js';
import { emptySample, evaluateGates, evaluateProbe, explainGates, type RampSample } from './Gates.js';

const gates = DEFAULT_GATES; // 0.95 success, 2000 ms p95, 1500 ms ttft, 5000 ms queue, 2 % 429
const healthy: RampSample = {
  attempts: 100,
  successes: 99,
  rateLimited: 0,
  latencyP95Ms: 800,
  ttftP95Ms: 400,
  queueAgeMs: 100,
};

describe('evaluateGates', () => {
  it('passes a healthy sample', () => {
    expect(evaluateGates(healthy, gates, 10)).toBe('pass');
  });

  it('is insufficient below the minimum sample, whatever the figures', () => {
    expect(evaluateGates({ ...healthy, attempts: 9, successes: 0 }, gates, 10)).toBe('insufficient');
    expect(evaluateGates(emptySample(), gates, 1)).toBe('insufficient');
    expect(evaluateGates({ ...healthy, attempts: 10, successes: 10 }, gates, 10)).toBe('pass');
  });

  it.each([
    ['successRate', { successes: 94 }],
    ['latencyP95', { latencyP95Ms: 2001 }],
    ['ttftP95', { ttftP95Ms: 1501 }],
    ['queueAge', { queueAgeMs: 5001 }],
    ['rate429', { rateLimited: 3, successes: 97 }],
  ] as const)('degrades when the %s gate does not hold', (gate, change) => {
    const f = explainGates({ ...healthy, ...change }, gates, 10);
    expect(f.outcome).toBe('degrade');
    expect(f.failed).toEqual([gate]);
  });

  it('holds each gate at exactly its threshold', () => {
    const edge = { ...healthy, successes: 95, latencyP95Ms: 2000, ttftP95Ms: 1500, queueAgeMs: 5000 };
    expect(evaluateGates(edge, gates, 10)).toBe('pass');
    expect(evaluateGates({ ...healthy, rateLimited: 2, successes: 98 }, gates, 10)).toBe('pass');
  });

  it('collapses below half the minimum success rate with a full sample', () => {
    const f = explainGates({ ...healthy, successes: 47 }, gates, 10);
    expect(f.outcome).toBe('collapse');
    expect(f.successRate).toBeCloseTo(0.47);
    expect(evaluateGates({ ...healthy, successes: 48 }, gates, 10)).toBe('degrade');
  });

  it('treats 429s as saturation, not collapse', () => {
    const saturated = { ...healthy, attempts: 100, rateLimited: 95, successes: 1 };
    const f = explainGates(saturated, gates, 10);
    expect(f.outcome).toBe('degrade');
    expect(f.rate429).toBeCloseTo(0.95);
    const all429 = explainGates({ ...healthy, rateLimited: 100, successes: 0 }, gates, 10);
    expect(all429).toMatchObject({ outcome: 'degrade', successRate: 1, failed: ['rate429'] });
  });

  it('does not judge a figure nobody reported', () => {
    const noFigures = { ...healthy, latencyP95Ms: null, ttftP95Ms: null, queueAgeMs: null };
    expect(evaluateGates(noFigures, gates, 10)).toBe('pass');
  });

  it('property: below the sample it is insufficient; adding a failure never improves the outcome', () => {
    const rank = { pass: 0, degrade: 1, collapse: 2, insufficient: -1 } as const;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 1, max: 50 }),
        (a, s, minSample) => {
          const attempts = Math.max(a, s);
          const sample = { ...healthy, attempts, successes: s, rateLimited: 0 };
          const out = evaluateGates(sample, gates, minSample);
          if (attempts < minSample) expect(out).toBe('insufficient');
          else {
            const worse = evaluateGates({ ...sample, attempts: attempts + 1 }, gates, minSample);
            expect(rank[worse]).toBeGreaterThanOrEqual(rank[out]);
          }
        },
      ),
    );
  });
});

describe('evaluateProbe', () => {
  it('passes a fast success, fails a systemic outcome or a slow success, ignores 429/auth/client errors', () => {
    expect(evaluateProbe({ outcome: 'success', latencyMs: 300, ttftMs: 100 }, gates)).toBe('pass');
    expect(evaluateProbe({ outcome: 'success', latencyMs: 2000 }, gates)).toBe('pass');
    expect(evaluateProbe({ outcome: 'success', latencyMs: 2001 }, gates)).toBe('fail');
    expect(evaluateProbe({ outcome: 'success', latencyMs: 300, ttftMs: 1501 }, gates)).toBe('fail');
    for (const outcome of ['overload', 'network', 'slow'] as const) {
      expect(evaluateProbe({ outcome, latencyMs: 10 }, gates)).toBe('fail');
    }
    for (const outcome of ['rate_limited', 'auth', 'client_error'] as const) {
      expect(evaluateProbe({ outcome, latencyMs: 10 }, gates)).toBe('neutral');
    }
  });
});
