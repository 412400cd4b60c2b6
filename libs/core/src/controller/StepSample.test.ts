import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyEvidence } from '../outcome/Outcome.js';
import { emptySample } from '../ramp/Gates.js';
import type { Evidence } from '../wire.js';
import {
  addEvidenceWindow,
  combineWindowPercentiles,
  countsTowardStep,
  emptyStepWindows,
  stepSample,
} from './StepSample.js';

const window = (
  attempts: number,
  successes: number,
  latencyP95Ms: number | null,
  rateLimited = 0,
  timedOut = 0,
): Evidence => {
  const e = emptyEvidence();
  e.attempts = attempts;
  e.successes = successes;
  e.byClass.rate_limited = rateLimited;
  e.byClass.network = timedOut;
  e.byClass.overload = attempts - successes - rateLimited - timedOut;
  e.latencyP95Ms = latencyP95Ms;
  return e;
};

describe('combineWindowPercentiles', () => {
  it('is null without windows that carried attempts', () => {
    expect(combineWindowPercentiles([])).toBeNull();
    expect(combineWindowPercentiles([{ value: 100, weight: 0 }])).toBeNull();
  });

  it('is the value below which windows holding 95 % of the attempts lie', () => {
    expect(
      combineWindowPercentiles([
        { value: 100, weight: 96 },
        { value: 9000, weight: 4 },
      ]),
    ).toBe(100);
    expect(
      combineWindowPercentiles([
        { value: 100, weight: 90 },
        { value: 9000, weight: 10 },
      ]),
    ).toBe(9000);
  });

  it('ignores non-finite figures', () => {
    expect(
      combineWindowPercentiles([
        { value: Number.NaN, weight: 5 },
        { value: 7, weight: 1 },
      ]),
    ).toBe(7);
  });

  it('always answers one of the window values, within their range', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ value: fc.integer({ min: 0, max: 10_000 }), weight: fc.integer({ min: 1, max: 50 }) }),
          {
            minLength: 1,
          },
        ),
        (windows) => {
          const p = combineWindowPercentiles(windows)!;
          expect(windows.map((w) => w.value)).toContain(p);
          expect(p).toBeLessThanOrEqual(Math.max(...windows.map((w) => w.value)));
        },
      ),
    );
  });
});

describe('step windows', () => {
  it('sums counts across instances (timeouts apart from other failures) and combines the p95s weighted by attempts', () => {
    const step = emptyStepWindows();
    addEvidenceWindow(step, window(10, 9, 200, 1));
    addEvidenceWindow(step, window(30, 27, 100, 0, 2));
    addEvidenceWindow(step, window(0, 0, 50_000)); // no attempts: says nothing
    expect(stepSample(step)).toEqual({
      attempts: 40,
      successes: 36,
      rateLimited: 1,
      timedOut: 2,
      latencyP95Ms: 200,
      ttftP95Ms: null,
      queueAgeMs: null,
    });
  });

  it('starts empty', () => {
    expect(stepSample(emptyStepWindows())).toEqual(emptySample());
  });
});

describe('countsTowardStep', () => {
  it('counts a window only when the previous heartbeat came after the step began (edges at stepSince ± 1 ms)', () => {
    expect(countsTowardStep(10_001, 10_000)).toBe(true);
    expect(countsTowardStep(10_000, 10_000)).toBe(false);
    expect(countsTowardStep(9_999, 10_000)).toBe(false);
  });

  it('does not count a window whose previous heartbeat is unknown', () => {
    expect(countsTowardStep(null, 10_000)).toBe(false);
    expect(countsTowardStep(undefined, 10_000)).toBe(false);
    expect(countsTowardStep(Number.NaN, 10_000)).toBe(false);
  });

  it('property: a window that started before a step change never counts toward the new step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e6 }), (since, before) => {
        expect(countsTowardStep(since - before, since)).toBe(false);
        expect(countsTowardStep(since + before + 1, since)).toBe(true);
      }),
    );
  });
});
