import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routedRatesProblem } from '../input/InputRules.js';
import { DEFAULT_REGIONAL_POLICY as P, decideRegional, type RegionHealth } from './RegionalVerdict.js';
import {
  allowedInto,
  allowedRates,
  isShiftThrottled,
  routedInto,
  shiftPhaseChange,
  throttledRegions,
} from './ShiftVelocity.js';

const TTL = 1500;
const NOW = 100_000;
const row = (region: string, routed: Record<string, number> | null, lastSeenAt = NOW) => ({
  region,
  lastSeenAt,
  routed,
});
const healthy = (region: string, extra: Partial<RegionHealth> = {}): RegionHealth => ({
  region,
  live: 10,
  open: 0,
  errorRate: 0.01,
  saturation: 0.2,
  ...extra,
});

describe('routedInto', () => {
  it('sums live rows’ routed rates per receiving region; a region’s rate to itself and stale rows do not count', () => {
    const into = routedInto(
      [
        row('eu', { us: 2, ap: 1 }),
        row('eu', { us: 3, eu: 50 }),
        row('ap', { us: 0.5 }),
        row('eu', { us: 100 }, NOW - TTL - 1),
        row('us', null),
      ],
      NOW,
      TTL,
    );
    expect([...into]).toEqual([
      ['ap', 1],
      ['us', 5.5],
    ]);
  });
});

describe('allowedRates / allowedInto', () => {
  it('a plan allows the larger of its current and previous rate per receiver; plans add up', () => {
    const a = allowedRates(
      { receivers: [{ region: 'us', ratePerSec: 4, headroomPerSec: 10 }] },
      { us: 8, ap: 1 },
    );
    expect(a).toEqual({ us: 8, ap: 1 });
    const b = allowedRates({ receivers: [{ region: 'us', ratePerSec: 2, headroomPerSec: 10 }] }, null);
    expect([...allowedInto([a, b])]).toEqual([
      ['us', 10],
      ['ap', 1],
    ]);
  });
});

describe('the shift_throttled rule', () => {
  it('examples: within tolerance is fine, beyond it is throttled, nothing allowed means any move is', () => {
    expect(isShiftThrottled(10.9, 10, 0.1)).toBe(false);
    expect(isShiftThrottled(11.1, 10, 0.1)).toBe(true);
    expect(isShiftThrottled(0.5, 0, 0.1)).toBe(true);
    expect(isShiftThrottled(0, 0, 0.1)).toBe(false);
    expect(
      throttledRegions(
        new Map([
          ['us', 30],
          ['ap', 1],
        ]),
        new Map([
          ['us', 10],
          ['ap', 1],
        ]),
        0.1,
      ),
    ).toEqual(['us']);
  });

  it('property: throttled exactly when received > allowed × (1 + tolerance); more received never un-throttles', () => {
    const rateArb = fc.double({ min: 0, max: 1e6, noNaN: true });
    fc.assert(
      fc.property(
        rateArb,
        rateArb,
        fc.double({ min: 0, max: 2, noNaN: true }),
        rateArb,
        (got, allowed, tol, more) => {
          const t = isShiftThrottled(got, allowed, tol);
          expect(t).toBe(got > 0 && got > allowed * (1 + tol));
          if (t) expect(isShiftThrottled(got + more, allowed, tol)).toBe(true);
          // allowing more never throttles a region that was not
          if (!t) expect(isShiftThrottled(got, allowed + more, tol)).toBe(false);
        },
      ),
    );
  });

  it('property: decideRegional marks a region below quorum shift_throttled exactly by the rule; never one at quorum or in a pool open', () => {
    const regionArb = fc.record({
      open: fc.integer({ min: 0, max: 10 }),
      errorRate: fc.double({ min: 0, max: 1, noNaN: true }),
      shiftedInRate: fc.double({ min: 0, max: 1000, noNaN: true }),
      shiftAllowedRate: fc.double({ min: 0, max: 1000, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(regionArb, { minLength: 1, maxLength: 5 }), (specs) => {
        const rows = specs.map((s, i) => healthy(`r${i}`, s));
        const d = decideRegional(rows, P);
        d.regions.forEach((v, i) => {
          const s = specs[i]!;
          const rule = isShiftThrottled(s.shiftedInRate, s.shiftAllowedRate, P.shiftTolerance);
          if (v.verdict === 'shift_throttled') {
            expect(rule).toBe(true);
            expect(v.quorum.reached).toBe(false);
            expect(d.pool).toBe('closed');
          } else if (d.pool === 'closed' && !v.quorum.reached) expect(rule).toBe(false);
        });
      }),
    );
  });

  it('a receiver beyond its allowance is shift_throttled while the source is region_open', () => {
    const rows = [
      { ...healthy('eu'), open: 10, errorRate: 1 },
      healthy('us', { shiftedInRate: 30, shiftAllowedRate: 10 }),
      healthy('ap', { shiftedInRate: 5, shiftAllowedRate: 10 }),
    ];
    const v = Object.fromEntries(decideRegional(rows, P).regions.map((r) => [r.region, r.verdict]));
    expect(v).toEqual({ eu: 'region_open', us: 'shift_throttled', ap: 'closed' });
  });
});

describe('shiftPhaseChange', () => {
  it('names the phase changes and nothing else', () => {
    expect(shiftPhaseChange(null, 'idle')).toBeNull();
    expect(shiftPhaseChange(null, 'shifting')).toBe('started');
    expect(shiftPhaseChange('shifting', 'shifting')).toBeNull();
    expect(shiftPhaseChange('shifting', 'frozen')).toBe('frozen');
    expect(shiftPhaseChange('frozen', 'shifting')).toBe('resumed');
    expect(shiftPhaseChange('shifting', 'reversing')).toBe('reversed');
    expect(shiftPhaseChange('reversing', 'idle')).toBe('ended');
    expect(shiftPhaseChange('idle', 'shifting')).toBe('started');
  });
});

describe('routedRatesProblem (InputRules)', () => {
  it('takes a bounded map of region → finite non-negative rate, naming the bad entry', () => {
    expect(routedRatesProblem({ 'us-east': 2.5 })).toBeNull();
    expect(routedRatesProblem([])).toMatch(/must be an object/);
    expect(routedRatesProblem({ 'us-east': -1 })).toBe('.us-east must be a non-negative number');
    expect(routedRatesProblem({ 'us-east': 2e9 })).toMatch(/^\.us-east must be at most/);
    expect(routedRatesProblem({ 'bad region': 1 })).toMatch(/invalid region name/);
    expect(routedRatesProblem({ __proto__x: 1, ['\u0000']: 1 })).toMatch(/invalid region name/);
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`r${i}`, 1]));
    expect(routedRatesProblem(many)).toMatch(/at most 32 regions/);
  });
});
