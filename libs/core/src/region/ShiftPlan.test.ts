import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHIFT_POLICY as P,
  planShift,
  shiftInput,
  type ShiftInput,
  type ShiftRegion,
  type ShiftState,
} from './ShiftPlan.js';

const region = (
  name: string,
  errorRate: number,
  capacityPerSec = 130,
  loadPerSec = 100,
  gatesHold = true,
): ShiftRegion => ({
  region: name,
  errorRate,
  capacityPerSec,
  loadPerSec,
  gatesHold,
});

const input = (over: Partial<ShiftInput> = {}): ShiftInput => ({
  now: 0,
  source: 'a',
  sourceDemandPerSec: 100,
  regions: [region('a', 1, 130, 0), region('b', 0.01), region('c', 0.01)],
  poolHeadroomPerSec: 1000,
  ...over,
});

/** Runs the plan step by step, each call one step later. */
function run(steps: number, at: (i: number) => Partial<ShiftInput> = () => ({})) {
  let state: ShiftState | null = null;
  const plans = [];
  for (let i = 0; i < steps; i++) {
    const r = planShift(input({ now: i * P.stepMs, ...at(i) }), state, P);
    state = r.state;
    plans.push(r.plan);
  }
  return plans;
}

const rate = (plan: ReturnType<typeof run>[number], to: string) =>
  plan.receivers.find((r) => r.region === to)?.ratePerSec ?? 0;

describe('shiftInput', () => {
  it("takes the source's load as its demand and leaves the rest of the pool's load on the quota", () => {
    const regions = [region('a', 1, 130, 100), region('b', 0, 130, 60), region('c', 0, 130, 40)];
    expect(shiftInput(7, 'a', regions, 500)).toEqual({
      now: 7,
      source: 'a',
      sourceDemandPerSec: 100,
      regions,
      poolHeadroomPerSec: 400,
    });
  });

  it('a source without figures wants nothing', () => {
    expect(shiftInput(0, 'z', [region('a', 0, 130, 100)], 150)).toMatchObject({
      sourceDemandPerSec: 0,
      poolHeadroomPerSec: 50,
    });
  });
});

describe('planShift', () => {
  it('starts small, grows while the receivers hold, and stops at their headroom', () => {
    const plans = run(6);
    expect(plans[0]!.mode).toBe('shifting');
    expect(rate(plans[0]!, 'b')).toBeCloseTo(3, 9); // 10 % of 30
    expect(rate(plans[1]!, 'b')).toBeCloseTo(6, 9);
    expect(rate(plans[2]!, 'b')).toBeCloseTo(12, 9);
    expect(rate(plans[5]!, 'b')).toBeCloseTo(24, 9); // capped at 80 % of the headroom
    expect(plans[0]!.expiresAt).toBe(P.maxShiftMs);
  });

  it('steps back when a receiver’s gates fail', () => {
    const plans = run(4, (i) =>
      i === 3
        ? { regions: [region('a', 1, 130, 0), region('b', 0.01, 130, 100, false), region('c', 0.01)] }
        : {},
    );
    expect(rate(plans[3]!, 'b')).toBeCloseTo(rate(plans[2]!, 'b') / 2, 9);
    expect(rate(plans[3]!, 'c')).toBeCloseTo(rate(plans[2]!, 'c') * 2, 9);
  });

  it('shifts only the deficit: a mostly healthy source keeps its traffic, a half-failed one moves half', () => {
    expect(
      planShift(input({ regions: [region('a', 0.03), region('b', 0), region('c', 0)] }), null, P).plan
        .receivers,
    ).toEqual([]);
    const half = run(10, () => ({
      regions: [region('a', 0.5), region('b', 0, 1000, 0), region('c', 0, 1000, 0)],
    }));
    const moved = half[9]!.receivers.reduce((s, r) => s + r.ratePerSec, 0);
    expect(half[9]!.deficitPerSec).toBe(50);
    expect(moved).toBeCloseTo(50, 9);
  });

  it('keeps the sum within the pool’s shared headroom', () => {
    const plans = run(8, () => ({ poolHeadroomPerSec: 20 }));
    expect(plans[7]!.receivers.reduce((s, r) => s + r.ratePerSec, 0)).toBeCloseTo(20, 9);
  });

  it('never moves toward a region less healthy than the source', () => {
    const plan = planShift(
      input({ regions: [region('a', 0.3), region('b', 0.6), region('c', 0.01)] }),
      null,
      P,
    ).plan;
    expect(plan.receivers.map((r) => r.region)).toEqual(['c']);
    // worse than the source while still under the degraded bar: still not a receiver
    const close = planShift(
      input({ regions: [region('a', 0.07), region('b', 0.095), region('c', 0.01)] }),
      null,
      P,
    ).plan;
    expect(close.receivers.map((r) => r.region)).toEqual(['c']);
  });

  it('freezes when every region is degraded (degrade in place)', () => {
    const plans = run(3, (i) =>
      i === 2 ? { regions: [region('a', 1), region('b', 0.5), region('c', 0.4)] } : {},
    );
    expect(plans[1]!.receivers.length).toBe(2);
    expect(plans[2]!.mode).toBe('frozen');
    expect(plans[2]!.receivers).toEqual([]);
  });

  it('reverses gradually once the source recovers, then goes idle', () => {
    const healthyAgain = { regions: [region('a', 0, 130, 0), region('b', 0.01), region('c', 0.01)] };
    const plans = run(14, (i) => (i >= 6 ? healthyAgain : {}));
    expect(plans[6]!.mode).toBe('reversing');
    expect(rate(plans[6]!, 'b')).toBeCloseTo(rate(plans[5]!, 'b') / 2, 9);
    expect(plans[13]!.mode).toBe('idle');
    expect(plans[13]!.receivers).toEqual([]);
  });

  it('reverses once the time limit passes even if the source is still failing', () => {
    let state: ShiftState | null = null;
    let last = planShift(input({ now: 0 }), null, P);
    state = last.state;
    last = planShift(input({ now: P.stepMs }), state, P);
    const before = rate(last.plan, 'b');
    last = planShift(input({ now: P.maxShiftMs }), last.state, P);
    expect(last.plan.mode).toBe('reversing');
    expect(rate(last.plan, 'b')).toBeCloseTo(before / 2, 9);
  });

  it('does not move rates between steps, but still applies the caps', () => {
    const first = planShift(input({ now: 0 }), null, P);
    const mid = planShift(
      input({
        now: P.stepMs - 1,
        regions: [region('a', 1, 130, 0), region('b', 0.01, 130, 129), region('c', 0.01)],
      }),
      first.state,
      P,
    );
    expect(rate(mid.plan, 'b')).toBeCloseTo(0.8, 9); // 80 % of what is left of b's headroom
    expect(rate(mid.plan, 'c')).toBeCloseTo(rate(first.plan, 'c'), 9);
  });

  // ---- properties over random pools and histories -------------------------------------------
  const regionArb = (name: string) =>
    fc.record({
      region: fc.constant(name),
      // half the draws near the bars (keep, degraded, margin) where the rules meet
      // integers scaled (fast-check's doubles crowd near 0); half the draws near the bars where the rules meet
      errorRate: fc
        .oneof(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 1000 }))
        .map((x) => x / 1000),
      capacityPerSec: fc.integer({ min: 0, max: 500 }),
      loadPerSec: fc.integer({ min: 0, max: 600 }),
      gatesHold: fc.boolean(),
    });
  const stepArb = fc.record({
    regions: fc.tuple(regionArb('a'), regionArb('b'), regionArb('c'), regionArb('d')),
    poolHeadroomPerSec: fc.integer({ min: -50, max: 800 }),
    sourceDemandPerSec: fc.integer({ min: 0, max: 400 }),
    advanceMs: fc.integer({ min: 0, max: 3 * P.stepMs }),
    // most steps repeat the pool as it was (a ramp needs several steps in a stable pool to reach the caps)
    repeat: fc.integer({ min: 0, max: 3 }),
  });

  type Step = {
    regions: ShiftRegion[];
    poolHeadroomPerSec: number;
    sourceDemandPerSec: number;
    advanceMs: number;
    repeat: number;
  };
  function* history(steps: Step[]) {
    let state: ShiftState | null = null;
    let now = 0;
    let pool: Step | null = null;
    for (const s of steps) {
      now += s.advanceMs;
      if (pool === null || s.repeat === 0) pool = s;
      const i: ShiftInput = {
        now,
        source: 'a',
        regions: pool.regions,
        poolHeadroomPerSec: pool.poolHeadroomPerSec,
        sourceDemandPerSec: pool.sourceDemandPerSec,
      };
      const out = planShift(i, state, P);
      state = out.state;
      yield { input: i, plan: out.plan };
    }
  }

  it('property: never more than a receiver’s headroom, nor the pool’s headroom in total', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => {
        for (const { input: i, plan } of history(steps.map((s) => ({ ...s, regions: [...s.regions] })))) {
          let total = 0;
          for (const r of plan.receivers) {
            const reg = i.regions.find((x) => x.region === r.region)!;
            expect(r.ratePerSec).toBeLessThanOrEqual(
              P.headroomShare * Math.max(0, reg.capacityPerSec - reg.loadPerSec) + 1e-9,
            );
            total += r.ratePerSec;
          }
          expect(total).toBeLessThanOrEqual(Math.max(0, i.poolHeadroomPerSec) + 1e-9);
          expect(plan.receivers.every((r) => r.region !== 'a')).toBe(true);
        }
      }),
    );
  });

  it('property: never toward a region less healthy than the source', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => {
        for (const { input: i, plan } of history(steps.map((s) => ({ ...s, regions: [...s.regions] })))) {
          const src = i.regions.find((x) => x.region === 'a')!;
          for (const r of plan.receivers) {
            const reg = i.regions.find((x) => x.region === r.region)!;
            expect(reg.errorRate).toBeLessThanOrEqual(src.errorRate + P.healthMargin);
          }
        }
      }),
    );
  });

  it('property: nothing moves while every region is degraded', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => {
        for (const { input: i, plan } of history(steps.map((s) => ({ ...s, regions: [...s.regions] })))) {
          if (i.regions.every((r) => r.errorRate > P.degradedErrorRate)) {
            expect(plan.mode).toBe('frozen');
            expect(plan.receivers).toEqual([]);
          }
        }
      }),
    );
  });

  it('property: while shifting, the moved total is at most the deficit and a step at most multiplies a rate by the growth', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 2, maxLength: 40 }), (steps) => {
        let prev: Map<string, number> | null = null;
        for (const { plan } of history(steps.map((s) => ({ ...s, regions: [...s.regions] })))) {
          const total = plan.receivers.reduce((s, r) => s + r.ratePerSec, 0);
          if (plan.mode === 'shifting') expect(total).toBeLessThanOrEqual(plan.deficitPerSec + 1e-9);
          for (const r of plan.receivers) {
            const was = prev?.get(r.region) ?? 0;
            if (was > 0) expect(r.ratePerSec).toBeLessThanOrEqual(was * P.growth + 1e-9);
            else expect(r.ratePerSec).toBeLessThanOrEqual(P.firstStepShare * r.headroomPerSec + 1e-9);
          }
          prev = new Map(plan.receivers.map((r) => [r.region, r.ratePerSec]));
        }
      }),
    );
  });

  it('property: in a steady pool the ramp reaches the caps and never passes them, nor goes toward a worse region', () => {
    fc.assert(
      fc.property(
        fc.tuple(regionArb('a'), regionArb('b'), regionArb('c')),
        fc.integer({ min: 0, max: 800 }),
        fc.integer({ min: 0, max: 400 }),
        (regions, poolHeadroomPerSec, sourceDemandPerSec) => {
          let state: ShiftState | null = null;
          const src = regions[0];
          for (let k = 0; k < 12; k++) {
            const out = planShift(
              { now: k * P.stepMs, source: 'a', regions, poolHeadroomPerSec, sourceDemandPerSec },
              state,
              P,
            );
            state = out.state;
            let total = 0;
            for (const r of out.plan.receivers) {
              const reg = regions.find((x) => x.region === r.region)!;
              expect(r.ratePerSec).toBeLessThanOrEqual(
                Math.max(0, reg.capacityPerSec - reg.loadPerSec) + 1e-9,
              );
              expect(reg.errorRate).toBeLessThanOrEqual(src.errorRate + P.healthMargin);
              total += r.ratePerSec;
            }
            expect(total).toBeLessThanOrEqual(poolHeadroomPerSec + 1e-9);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
