import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultPoolBody } from '../pool/PoolDefaults.js';
import { seededRng } from '../random/Rng.js';
import {
  applyOperatorAction,
  type GlobalBreakerState,
  initialGlobalState,
  onQuorum,
} from './GlobalBreaker.js';
import { GLOBAL_STATE_VERSION, stampGlobalState, upgradeGlobalState } from './StateVersion.js';

/** A state as the first controllers stored it: no `v`, no drainingUntil, no quorumQuietUntil. */
const V1_OPEN = {
  state: 'open',
  epoch: 3,
  since: 1_000,
  failedRecoveries: 2,
  cooldownUntil: 61_000,
  probesPassed: 0,
  step: null,
  stepSince: null,
  rampPaused: false,
  heldAtStep: null,
  ceiling: null,
  ceilingRetries: 0,
  nextStepUpAfter: null,
  lastPassedStep: null,
  settled: false,
  operatorHold: false,
};

describe('upgradeGlobalState', () => {
  it('reads a v1 state with the fields it lacks as null, at the current version', () => {
    const s = upgradeGlobalState(V1_OPEN);
    // v3 dropped the step-grid fields (heldAtStep, ceiling, lastPassedStep) for the ramp's levels
    const { heldAtStep: _h, ceiling: _c, lastPassedStep: _l, ...kept } = V1_OPEN;
    expect(s).toEqual({
      ...kept,
      drainingUntil: null,
      drainTo: null,
      quorumQuietUntil: null,
      level: null,
      heldLevel: null,
      failedLevel: null,
      baselineLatencyMs: null,
      sustainedLevel: null,
      shedsCleanly: false,
      shedSeenLevel: null,
      shedDeclarationRefuted: false,
      v: GLOBAL_STATE_VERSION,
    });
    expect(Object.keys(s).sort()).toEqual(Object.keys(initialGlobalState(0)).sort());
  });

  it('keeps the values a state has', () => {
    const s = upgradeGlobalState({ ...V1_OPEN, state: 'ramping', drainingUntil: 5, quorumQuietUntil: 7 });
    expect(s).toMatchObject({ state: 'ramping', drainingUntil: 5, quorumQuietUntil: 7, v: 3 });
    const v3 = upgradeGlobalState({
      ...s,
      level: 0.2,
      heldLevel: 0.1,
      failedLevel: 0.3,
      sustainedLevel: 0.5,
    });
    expect(v3).toMatchObject({ level: 0.2, heldLevel: 0.1, failedLevel: 0.3, sustainedLevel: 0.5 });
  });

  it('fresh states and the states core derives from them are current: read back unchanged', () => {
    const pool = { id: 'p', ...defaultPoolBody(['d']) };
    const fresh = initialGlobalState(10);
    expect(fresh.v).toBe(GLOBAL_STATE_VERSION);
    expect(upgradeGlobalState(fresh)).toEqual(fresh);
    const quorum = { reached: true, open: 6, live: 10, threshold: 5 };
    const opened = onQuorum(fresh, quorum, 20, pool, seededRng(1)).next;
    expect(upgradeGlobalState(opened)).toEqual(opened);
    const closed = applyOperatorAction(opened, 'force_close', '', 30, pool, seededRng(1), 1000).next;
    expect(upgradeGlobalState(JSON.parse(JSON.stringify(closed)))).toEqual(closed);
  });

  it('refuses a version newer than it knows, and what is not a state', () => {
    expect(() => upgradeGlobalState({ ...V1_OPEN, v: GLOBAL_STATE_VERSION + 1 })).toThrow(
      /schema version 4, newer than this controller understands \(3\)/,
    );
    expect(() => upgradeGlobalState({ ...V1_OPEN, v: 0 })).toThrow(/positive integer/);
    expect(() => upgradeGlobalState({ ...V1_OPEN, v: '2' })).toThrow(/positive integer/);
    expect(() => upgradeGlobalState(null)).toThrow(/expected a JSON object/);
    expect(() => upgradeGlobalState([])).toThrow(/expected a JSON object/);
    expect(() => upgradeGlobalState({ ...V1_OPEN, state: 'ajar' })).toThrow(/unknown state/);
    expect(() => upgradeGlobalState({ ...V1_OPEN, epoch: undefined })).toThrow(/epoch/);
  });

  it('stamps the current version on what is written', () => {
    const s = upgradeGlobalState(V1_OPEN);
    expect(stampGlobalState({ ...s, v: 1 })).toEqual(s);
  });

  const nullableTime = fc.option(fc.integer({ min: 0, max: 1e12 }), { nil: null });
  const storedArb = fc
    .record(
      {
        v: fc.constantFrom(1, 2, 3),
        state: fc.constantFrom('closed', 'open', 'probing', 'ramping'),
        epoch: fc.nat(),
        since: fc.nat(),
        failedRecoveries: fc.nat(),
        cooldownUntil: nullableTime,
        probesPassed: fc.nat(),
        step: fc.option(fc.nat(10), { nil: null }),
        stepSince: nullableTime,
        rampPaused: fc.boolean(),
        heldAtStep: fc.option(fc.nat(10), { nil: null }),
        ceiling: fc.option(fc.nat(10), { nil: null }),
        level: fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
        sustainedLevel: fc.option(fc.double({ min: 0.001, max: 1, noNaN: true }), { nil: null }),
        ceilingRetries: fc.nat(),
        nextStepUpAfter: nullableTime,
        lastPassedStep: fc.option(fc.nat(10), { nil: null }),
        settled: fc.boolean(),
        operatorHold: fc.boolean(),
        drainingUntil: nullableTime,
        quorumQuietUntil: nullableTime,
      },
      // any of the later fields (and the version itself) may be missing from an old row
      { requiredKeys: ['state', 'epoch', 'since', 'failedRecoveries', 'cooldownUntil', 'probesPassed'] },
    )
    // what a row holds is JSON: a key stored as undefined is a key not stored
    .map((s) => JSON.parse(JSON.stringify(s)) as unknown);

  it('property: upgrade is idempotent, and a current-version value comes back unchanged', () => {
    fc.assert(
      fc.property(storedArb, (raw) => {
        const once: GlobalBreakerState = upgradeGlobalState(raw);
        expect(once.v).toBe(GLOBAL_STATE_VERSION);
        expect(once.drainingUntil === undefined || once.quorumQuietUntil === undefined).toBe(false);
        expect(upgradeGlobalState(once)).toEqual(once);
        expect(upgradeGlobalState(JSON.parse(JSON.stringify(once)))).toEqual(once);
      }),
    );
  });
});
