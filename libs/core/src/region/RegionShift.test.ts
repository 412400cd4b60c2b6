import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GlobalState } from '../wire.js';
import {
  chooseRoute,
  instanceShift,
  regionShiftInput,
  sourceErrorRate,
  type ShiftRow,
} from './RegionShift.js';
import { DEFAULT_SHIFT_POLICY, planShift } from './ShiftPlan.js';

const NOW = 50_000;
const TTL = 5000;
const evidence = (attempts: number, failed: number) => ({
  attempts,
  successes: attempts - failed,
  byClass: { overload: 0, network: failed, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
  latencyP95Ms: null,
  ttftP95Ms: null,
  queueAgeMs: null,
});
const row = (instanceId: string, region: string, demand: number, failed = 0): ShiftRow => ({
  instanceId,
  region,
  lastSeenAt: NOW - 100,
  evidence: evidence(10, failed),
  demand: { standard: demand },
});
const ctx = (source: string, sourceState: GlobalState = 'open') => ({
  now: NOW,
  heartbeatTtlMs: TTL,
  source,
  sourceState,
  sourceLevel: null,
  poolCapacityPerSec: 120,
  maxReceiverErrorRate: 0.1,
});

describe('regionShiftInput', () => {
  it('splits the pool quota by live share; a paused source fails all its demand', () => {
    const rows = [row('a1', 'a', 10), row('a2', 'a', 10), row('b1', 'b', 10), row('c1', 'c', 5)];
    const input = regionShiftInput(rows, ctx('a'));
    expect(input.regions.map((r) => [r.region, r.capacityPerSec, r.loadPerSec, r.errorRate])).toEqual([
      ['a', 60, 20, 1],
      ['b', 30, 10, 0],
      ['c', 30, 5, 0],
    ]);
    expect(input.sourceDemandPerSec).toBe(20);
    expect(input.poolHeadroomPerSec).toBe(105);
    const { plan } = planShift(input, null, DEFAULT_SHIFT_POLICY);
    expect(plan.mode).toBe('shifting');
    expect(plan.deficitPerSec).toBe(20);
    // one instance's share: the region's rates over its two live instances
    const share = instanceShift(plan, 2);
    expect(share.receivers.map((r) => r.ratePerSec)).toEqual(plan.receivers.map((r) => r.ratePerSec / 2));
  });

  it('a ramping source fails the share of its demand its ramp does not admit', () => {
    // demand 40/s on a slice of 40/s: a quarter admitted, three quarters unserved
    expect(sourceErrorRate('ramping', 0.25, 0, 40, 40)).toBe(0.75);
    // at the top level with a backlog: demand 100/s (backlog included), 40/s admitted
    expect(sourceErrorRate('ramping', 1, 0, 100, 40)).toBeCloseTo(0.6, 12);
    // at the top level, its demand fits: nothing unserved, whatever it measures
    expect(sourceErrorRate('ramping', 1, 0.5, 30, 40)).toBe(0);
    expect(sourceErrorRate('ramping', 0.5, 0, 0, 40)).toBe(0);
    expect(sourceErrorRate('probing', null, 0, 40, 40)).toBe(1);
    expect(sourceErrorRate('open', null, 0, 0, 40)).toBe(1);
    expect(sourceErrorRate('closed', null, 0.3, 40, 40)).toBe(0.3);
  });

  it('a ramped source keeps moving its backlog until it serves its demand at home, then reverses gradually', () => {
    // a: 2 of 4 live instances, a slice of 60/s of the 120/s quota, ramped to the top level; its
    // rows report 50/s of demand each (a backlog queued while it was open)
    const rows = (demandA: number) => [
      row('a1', 'a', demandA),
      row('a2', 'a', demandA),
      row('b1', 'b', 20),
      row('c1', 'c', 20),
    ];
    const at = (now: number, demandA: number) =>
      regionShiftInput(
        rows(demandA).map((r) => ({ ...r, lastSeenAt: now - 100 })),
        { ...ctx('a', 'ramping'), now, sourceLevel: 1 },
      );
    let out = planShift(at(NOW, 50), null, DEFAULT_SHIFT_POLICY);
    expect(out.plan.mode).toBe('shifting');
    expect(out.plan.deficitPerSec).toBeCloseTo(100 - 60, 9);
    // the old rule (1 − level) saw no deficit at the top level and moved nothing
    expect(out.plan.receivers.map((r) => r.region)).toEqual(['b', 'c']);
    for (let k = 1; k <= 4; k++)
      out = planShift(at(NOW + k * DEFAULT_SHIFT_POLICY.stepMs, 50), out.state, DEFAULT_SHIFT_POLICY);
    expect(out.plan.mode).toBe('shifting');
    const moving = out.plan.receivers.reduce((s, r) => s + r.ratePerSec, 0);
    expect(moving).toBeGreaterThan(0);
    // its backlog drained: 25/s each, 50/s in all, within its 60/s: reversed, by halves
    const t = NOW + 5 * DEFAULT_SHIFT_POLICY.stepMs;
    const back = planShift(at(t, 25), out.state, DEFAULT_SHIFT_POLICY);
    expect(back.plan.mode).toBe('reversing');
    expect(back.plan.deficitPerSec).toBe(0);
    expect(back.plan.receivers.reduce((s, r) => s + r.ratePerSec, 0)).toBeCloseTo(
      moving / DEFAULT_SHIFT_POLICY.growth,
      9,
    );
  });

  it('property: a ramping source’s deficit is its demand minus what its ramp admits (none within the keep share)', () => {
    const arbRow = fc.record({
      region: fc.constantFrom('a', 'b', 'c'),
      demand: fc.double({ min: 0, max: 200, noNaN: true }),
      failed: fc.integer({ min: 0, max: 10 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbRow, { minLength: 1, maxLength: 20 }),
        fc.double({ min: 0, max: 500, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (spec, quota, level) => {
          const rows = spec.map((s, i) => row(`i${i}`, s.region, s.demand, s.failed));
          const input = regionShiftInput(rows, {
            ...ctx('a', 'ramping'),
            sourceLevel: level,
            poolCapacityPerSec: quota,
          });
          const src = input.regions.find((r) => r.region === 'a')!;
          const unserved = Math.max(0, src.loadPerSec - level * src.capacityPerSec);
          const { plan } = planShift(input, null, DEFAULT_SHIFT_POLICY);
          const keep = DEFAULT_SHIFT_POLICY.keepErrorRate * src.loadPerSec;
          if (unserved > keep + 1e-6) expect(plan.deficitPerSec).toBeCloseTo(unserved, 6);
          else if (unserved < keep - 1e-6) expect(plan.deficitPerSec).toBe(0);
          // never more than the demand, and the plan never moves more than the deficit
          expect(plan.deficitPerSec).toBeLessThanOrEqual(src.loadPerSec + 1e-6);
          const moved = plan.receivers.reduce((s, r) => s + r.ratePerSec, 0);
          expect(moved).toBeLessThanOrEqual(plan.deficitPerSec + 1e-6);
        },
      ),
    );
  });

  it('property: planned rates never exceed a receiver’s headroom nor the pool’s, never toward a worse region', () => {
    const arbRow = fc.record({
      region: fc.constantFrom('a', 'b', 'c', 'd'),
      demand: fc.double({ min: 0, max: 50, noNaN: true }),
      failed: fc.integer({ min: 0, max: 10 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbRow, { minLength: 1, maxLength: 20 }),
        fc.double({ min: 0, max: 500, noNaN: true }),
        fc.constantFrom<GlobalState>('open', 'probing', 'ramping'),
        (spec, quota, state) => {
          const rows = spec.map((s, i) => row(`i${i}`, s.region, s.demand, s.failed));
          const input = regionShiftInput(rows, { ...ctx('a', state), poolCapacityPerSec: quota });
          const cap = input.regions.reduce((s, r) => s + r.capacityPerSec, 0);
          expect(cap).toBeLessThanOrEqual(quota + 1e-6);
          const { plan } = planShift(input, null, DEFAULT_SHIFT_POLICY);
          const src = input.regions.find((r) => r.region === 'a')!;
          let total = 0;
          for (const r of plan.receivers) {
            const reg = input.regions.find((x) => x.region === r.region)!;
            expect(r.ratePerSec).toBeLessThanOrEqual(Math.max(0, reg.capacityPerSec - reg.loadPerSec) + 1e-6);
            expect(reg.errorRate).toBeLessThanOrEqual(
              src.errorRate + DEFAULT_SHIFT_POLICY.healthMargin + 1e-9,
            );
            total += r.ratePerSec;
          }
          expect(total).toBeLessThanOrEqual(Math.max(0, input.poolHeadroomPerSec) + 1e-6);
        },
      ),
    );
  });
});

describe('chooseRoute', () => {
  it('stays home while its breaker admits; else the first listed receiver with a token; else nowhere', () => {
    const none = () => false;
    const any = () => true;
    expect(chooseRoute('a', true, ['a', 'b'], ['b'], any)).toBe('a');
    expect(chooseRoute('a', false, ['a', 'c', 'b'], ['b', 'c'], any)).toBe('c');
    expect(chooseRoute('a', false, ['a', 'b'], ['b'], none)).toBeNull();
    expect(chooseRoute('a', false, ['a', 'd'], ['b'], any)).toBeNull();
  });

  it('property: never a region outside the list or the plan, never home while home refuses; tokens only for the answer', () => {
    const regions = fc.subarray(['a', 'b', 'c', 'd']);
    fc.assert(
      fc.property(
        regions,
        regions,
        fc.boolean(),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        (list, receivers, admits, has) => {
          const taken: string[] = [];
          const take = (r: string) => {
            const ok = has[['a', 'b', 'c', 'd'].indexOf(r)]!;
            if (ok) taken.push(r);
            return ok;
          };
          const got = chooseRoute('a', admits, list, receivers, take);
          if (got !== null) expect(list).toContain(got);
          if (!admits) {
            expect(got).not.toBe('a');
            if (got !== null) expect(receivers).toContain(got);
            expect(taken).toEqual(got === null ? [] : [got]);
          }
        },
      ),
    );
  });
});
