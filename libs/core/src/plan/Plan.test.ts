import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import type { GlobalState } from '../wire.js';
import { buildPlan, type PlanInput } from './Plan.js';

// the docs/api.md example pool: six configured steps
const pool = DEFAULT_POOL('llm', 'llm');
pool.ramp.steps = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0];
const token = { token: 't-1', fencing: 41, validForMs: 5000 };
const share = { standard: { ratePerSec: 0.4, burst: 1, concurrency: 1 } };

function input(state: GlobalState, over: Partial<PlanInput> = {}): PlanInput {
  return {
    breakerId: 'b-1',
    dependency: 'llm-provider',
    global: {
      state,
      epoch: 7,
      step: state === 'ramping' ? 2 : null,
      level: state === 'ramping' ? 0.1 : null,
    },
    quorum: { open: 212, live: 300, threshold: 150 },
    pool,
    allowance: share,
    probe: token,
    validForMs: 5000,
    ...over,
  };
}

describe('buildPlan', () => {
  it('shapes the docs/api.md example for a ramping breaker', () => {
    expect(buildPlan(input('ramping', { probe: null }))).toEqual({
      dependency: 'llm-provider',
      breakerId: 'b-1',
      global: {
        state: 'ramping',
        epoch: 7,
        step: 2,
        steps: 6,
        level: 0.1,
        quorum: { open: 212, live: 300, threshold: 150 },
      },
      allowance: { validForMs: 5000, classes: share },
      probe: null,
      fallback: null,
    });
  });

  it('tells a ramping instance that is not admitted an empty allowance, never "unrestricted"', () => {
    expect(buildPlan(input('ramping', { allowance: null })).allowance).toEqual({
      validForMs: 5000,
      classes: {},
    });
    const zero = { standard: { ratePerSec: 0, burst: 1, concurrency: 1 } };
    expect(buildPlan(input('ramping', { allowance: zero })).allowance!.classes).toEqual({});
  });

  it('hands a probe token only while probing, and an allowance only while ramping', () => {
    expect(buildPlan(input('probing'))).toMatchObject({ probe: token, allowance: null });
    expect(buildPlan(input('ramping')).probe).toBeNull();
    for (const s of ['closed', 'open'] as const) {
      expect(buildPlan(input(s))).toMatchObject({
        probe: null,
        allowance: null,
        global: { state: s, step: null },
      });
    }
  });

  it('tells the level a ramp admits (the first step when none is stored), and none outside a ramp', () => {
    const at = (state: GlobalState, level: number | null) =>
      buildPlan(input(state, { global: { state, epoch: 7, step: 3, level } })).global.level;
    expect(at('ramping', 0.37)).toBe(0.37);
    expect(at('ramping', null)).toBe(0.01);
    expect(at('ramping', 4)).toBe(1); // never above the top step
    for (const s of ['closed', 'open', 'probing'] as const) expect(at(s, 0.37)).toBeNull();
  });

  it('passes a fallback plan through', () => {
    const fallback = { probeOwner: true, regionShare: { ratePerSec: 0.05 }, regionLive: 100 };
    expect(buildPlan(input('open', { fallback })).fallback).toEqual(fallback);
  });

  it('property: the plan never carries both a token and an allowance, and copies what it is given', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<GlobalState>('closed', 'open', 'probing', 'ramping'),
        fc.boolean(),
        (state, admitted) => {
          const given = input(state, { allowance: admitted ? share : null });
          const plan = buildPlan(given);
          expect(plan.probe !== null && plan.allowance !== null).toBe(false);
          expect(plan.global.step === null).toBe(state !== 'ramping');
          if (plan.probe) expect(plan.probe).not.toBe(given.probe);
        },
      ),
    );
  });
});
