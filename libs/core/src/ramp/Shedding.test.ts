import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import type { GateOutcome } from './Gates.js';
import {
  judgedGateThresholds,
  learnShedding,
  learnSheddingDeclared,
  NO_SHEDDING,
  SHED_CONFIRM_SHARE,
  SHED_MAX_FAILURE_SHARE,
  SHED_MIN_FAILURE_SHARE,
  SHED_MIN_FAILURES,
  shedQuickly,
  SHEDDING_LATENCY_INFLATION,
  SHEDDING_MIN_SUCCESS_RATE,
  sheddingThresholds,
  shedsCleanlyNow,
  type ShedKnowledge,
  type ShedObservation,
  type SheddingState,
} from './Shedding.js';

/** a judged window at `level`: `failed` of 100 answered calls failed, `timedOut` of them by timing out */
const seen = (
  level: number,
  failed: number,
  timedOut = 0,
  outcome: GateOutcome = 'degrade',
): ShedObservation => ({
  level,
  sample: { attempts: 100, successes: 100 - failed, rateLimited: 0, timedOut },
  outcome,
  windowOver: true,
});
const clean = (level: number, windowOver = true): ShedObservation => ({
  ...seen(level, 0, 0, 'pass'),
  windowOver,
});
const pending = (level: number): SheddingState => ({ shedsCleanly: false, shedSeenLevel: level });
const LEARNED: SheddingState = { shedsCleanly: true, shedSeenLevel: null };

/** any judged window: mostly samples around the 2–20 % of failures a quick shed needs */
const observation = fc.record({
  level: fc.double({ min: 0.001, max: 1, noNaN: true }),
  sample: fc
    .record({
      answered: fc.integer({ min: 0, max: 300 }),
      // up to 40 failures: most samples with any lie around the 2–20 % a quick shed needs
      failures: fc.integer({ min: 0, max: 40 }),
      rateLimited: fc.integer({ min: 0, max: 50 }),
      timedOut: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    })
    .map(({ answered, failures, rateLimited, timedOut }) => {
      const failed = Math.min(answered, failures);
      const counted = timedOut === undefined ? {} : { timedOut: Math.min(timedOut, failed) };
      return { attempts: answered + rateLimited, successes: answered - failed, rateLimited, ...counted };
    }),
  outcome: fc.constantFrom<GateOutcome>('pass', 'degrade', 'collapse', 'insufficient'),
  windowOver: fc.boolean(),
});

describe('shedQuickly', () => {
  it('a few answered calls failed, none by timing out: from SHED_MIN_FAILURES and SHED_MIN_FAILURE_SHARE up to SHED_MAX_FAILURE_SHARE', () => {
    expect(shedQuickly(seen(0.2, 4))).toBe(true);
    expect(shedQuickly(seen(0.2, SHED_MIN_FAILURES - 1))).toBe(false);
    expect(shedQuickly(seen(0.2, SHED_MAX_FAILURE_SHARE * 100))).toBe(true);
    expect(shedQuickly(seen(0.2, SHED_MAX_FAILURE_SHARE * 100 + 1))).toBe(false); // an overshoot, not a knee
    // the share counts: 3 failures of 200 answered is under 2 %
    const many = { ...seen(0.2, 3), sample: { attempts: 200, successes: 197, rateLimited: 0, timedOut: 0 } };
    expect(3 / 200).toBeLessThan(SHED_MIN_FAILURE_SHARE);
    expect(shedQuickly(many)).toBe(false);
  });

  it('never from a timeout, a sample that does not count them, a collapse or a thin sample', () => {
    expect(shedQuickly(seen(0.2, 4, 1))).toBe(false);
    const uncounted = { ...seen(0.2, 4), sample: { attempts: 100, successes: 96, rateLimited: 0 } };
    expect(shedQuickly(uncounted)).toBe(false);
    expect(shedQuickly(seen(0.2, 4, 0, 'collapse'))).toBe(false);
    expect(shedQuickly(seen(0.2, 4, 0, 'insufficient'))).toBe(false);
  });

  it('429s are not failures: they are left out of the answered calls', () => {
    const limited = {
      ...seen(0.2, 4),
      sample: { attempts: 150, successes: 96, rateLimited: 50, timedOut: 0 },
    };
    expect(shedQuickly(limited)).toBe(true);
  });
});

describe('learnShedding', () => {
  it('learns in two moves: quick errors at a level, then a clean level at SHED_CONFIRM_SHARE of it or more', () => {
    const first = learnShedding(NO_SHEDDING, seen(0.3, 5));
    expect(first).toEqual(pending(0.3));
    expect(learnShedding(first, clean(0.3 * SHED_CONFIRM_SHARE))).toEqual(LEARNED);
    expect(learnShedding(first, clean(0.28))).toEqual(LEARNED);
  });

  it('is not confirmed by a level further below, a window not over, a failure or a degrade', () => {
    const s = pending(0.3);
    expect(learnShedding(s, clean(0.3 * SHED_CONFIRM_SHARE - 1e-9))).toBe(s);
    expect(learnShedding(s, clean(0.3, false))).toBe(s);
    expect(learnShedding(s, seen(0.3, 1, 0, 'pass'))).toBe(s);
    expect(learnShedding(s, { ...clean(0.3), outcome: 'degrade' })).toBe(s); // latency failed it
  });

  it('a collapse forgets what was learned and what was pending', () => {
    expect(learnShedding(LEARNED, seen(0.3, 60, 0, 'collapse'))).toEqual(NO_SHEDDING);
    expect(learnShedding(pending(0.3), seen(0.3, 60, 0, 'collapse'))).toEqual(NO_SHEDDING);
  });

  it('once learned, nothing but a collapse changes it', () => {
    expect(learnShedding(LEARNED, seen(0.3, 50, 10))).toBe(LEARNED);
    expect(learnShedding(LEARNED, clean(0.01))).toBe(LEARNED);
  });

  it('property: from nothing, only a quick shed followed (later) by a clean level at SHED_CONFIRM_SHARE of it learns; a timeout never starts it', () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 30 }), (observations) => {
        let s: SheddingState = NO_SHEDDING;
        let seenAt: number | null = null;
        for (const o of observations) {
          const next = learnShedding(s, o);
          if (!s.shedsCleanly && next.shedsCleanly) {
            // learned: the pending level was set by a quick shed, and this observation confirms it
            expect(seenAt).not.toBeNull();
            expect(o.outcome).toBe('pass');
            expect(o.windowOver).toBe(true);
            expect(o.sample.successes).toBe(o.sample.attempts - o.sample.rateLimited);
            expect(o.level).toBeGreaterThanOrEqual(SHED_CONFIRM_SHARE * seenAt!);
          }
          if (s.shedSeenLevel === null && next.shedSeenLevel !== null) {
            expect(o.sample.timedOut).toBe(0);
            expect(shedQuickly(o)).toBe(true);
            seenAt = next.shedSeenLevel;
          }
          if (o.outcome === 'collapse') {
            expect(next).toEqual(NO_SHEDDING);
            seenAt = null;
          }
          s = next;
        }
      }),
    );
  });
});

describe('sheddingThresholds', () => {
  const { gates, latencyInflation } = DEFAULT_POOL('llm', 'llm').ramp;

  it('not learned: the pool’s own', () => {
    expect(sheddingThresholds(gates, latencyInflation, false)).toEqual({ gates, latencyInflation });
  });

  it('learned: errors count from SHEDDING_MIN_SUCCESS_RATE, latency only past SHEDDING_LATENCY_INFLATION', () => {
    const t = sheddingThresholds(gates, latencyInflation, true);
    expect(t.gates).toEqual({ ...gates, minSuccessRate: SHEDDING_MIN_SUCCESS_RATE });
    expect(t.latencyInflation).toBe(SHEDDING_LATENCY_INFLATION);
  });

  it('property: never looser on errors nor tighter on latency than the pool', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 20, noNaN: true }),
        fc.boolean(),
        (minSuccessRate, inflation, learned) => {
          const t = sheddingThresholds({ ...gates, minSuccessRate }, inflation, learned);
          expect(t.gates.minSuccessRate).toBeGreaterThanOrEqual(minSuccessRate);
          expect(t.latencyInflation).toBeGreaterThanOrEqual(inflation);
          expect({ ...t.gates, minSuccessRate }).toEqual({ ...gates, minSuccessRate });
        },
      ),
    );
  });
});

describe('learnSheddingDeclared (the pool says the provider sheds cleanly: ramp.shedsCleanly)', () => {
  const NOTHING: ShedKnowledge = { ...NO_SHEDDING, declarationRefuted: false };

  it('a declaration stands from the first window: judged as a clean shedder before anything was learned', () => {
    expect(shedsCleanlyNow(NOTHING, true)).toBe(true);
    expect(shedsCleanlyNow(NOTHING, false)).toBe(false);
    // a window that neither learns nor forgets leaves what the breaker knows as it was
    expect(learnSheddingDeclared(NOTHING, true, seen(0.3, 50, 10))).toBe(NOTHING);
    expect(learnSheddingDeclared(NOTHING, true, clean(0.3))).toBe(NOTHING);
  });

  it('a collapse refutes it for good: the breaker then learns as if nothing had been declared', () => {
    const refuted = learnSheddingDeclared(NOTHING, true, seen(0.3, 60, 0, 'collapse'));
    expect(refuted).toEqual({ ...NO_SHEDDING, declarationRefuted: true });
    expect(shedsCleanlyNow(refuted, true)).toBe(false);
    // it can still learn shedding from the provider itself, and a later collapse forgets that as for any breaker
    const shed = learnSheddingDeclared(refuted, true, seen(0.3, 5));
    const learned = learnSheddingDeclared(shed, true, clean(0.3));
    expect(learned).toEqual({ shedsCleanly: true, shedSeenLevel: null, declarationRefuted: true });
    expect(learnSheddingDeclared(learned, true, seen(0.3, 60, 0, 'collapse'))).toEqual(refuted);
  });

  it('a collapse without a declaration refutes nothing', () => {
    const learned: ShedKnowledge = { ...LEARNED, declarationRefuted: false };
    expect(learnSheddingDeclared(learned, false, seen(0.3, 60, 0, 'collapse'))).toEqual(NOTHING);
  });

  it('property: undeclared, it learns exactly as learnShedding; declared, only a collapse changes what it knows', () => {
    const knowledge = fc.record({
      shedsCleanly: fc.boolean(),
      shedSeenLevel: fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
      declarationRefuted: fc.boolean(),
    });
    fc.assert(
      fc.property(knowledge, observation, (k, o) => {
        const { declarationRefuted, ...state } = k;
        const plain = learnShedding(state, o);
        const undeclared = learnSheddingDeclared(k, false, o);
        expect({ shedsCleanly: undeclared.shedsCleanly, shedSeenLevel: undeclared.shedSeenLevel }).toEqual(
          plain === state ? state : plain,
        );
        expect(undeclared.declarationRefuted).toBe(declarationRefuted);
        const declared = learnSheddingDeclared(k, true, o);
        if (!declarationRefuted && o.outcome !== 'collapse') expect(declared).toBe(k);
        if (o.outcome === 'collapse') {
          expect(declared.shedsCleanly).toBe(false);
          expect(declared.declarationRefuted).toBe(true);
        }
      }),
    );
  });
});

describe('judgedGateThresholds', () => {
  const { gates } = DEFAULT_POOL('llm', 'llm').ramp;

  it('the pool’s gates, tightened on errors as sheddingThresholds does when the figures say the provider sheds cleanly', () => {
    expect(judgedGateThresholds(gates, {})).toBe(gates);
    expect(judgedGateThresholds(gates, { shedsCleanly: true })).toEqual(
      sheddingThresholds(gates, 3, true).gates,
    );
  });
});
