import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REGIONAL_POLICY as P, decideRegional, type RegionHealth } from './RegionalVerdict.js';

const healthy = (region: string, live = 10): RegionHealth => ({
  region,
  live,
  open: 0,
  errorRate: 0.01,
  saturation: 0.5,
});
const failed = (region: string, live = 10): RegionHealth => ({
  region,
  live,
  open: live,
  errorRate: 1,
  saturation: 0,
});
const verdicts = (rows: RegionHealth[]) =>
  Object.fromEntries(decideRegional(rows, P).regions.map((r) => [r.region, r.verdict]));

describe('decideRegional', () => {
  it('a region at quorum while the rest is healthy is region_open; the pool stays closed', () => {
    const d = decideRegional([failed('a'), healthy('b'), healthy('c')], P);
    expect(d.pool).toBe('closed');
    expect(verdicts([failed('a'), healthy('b'), healthy('c')])).toEqual({
      a: 'region_open',
      b: 'closed',
      c: 'closed',
    });
    const sig = d.regions[0]!.signature;
    expect(sig.region).toEqual({ errorRate: 1, saturation: 0 });
    expect(sig.pool.errorRate).toBeCloseTo(0.34, 9);
    expect(sig.pool.saturation).toBeCloseTo(1 / 3, 9);
  });

  it('two regions of five at quorum are both region_open (one pool, two regional faults)', () => {
    const rows = [failed('a'), failed('b'), healthy('c'), healthy('d'), healthy('e'), healthy('f', 20)];
    expect(verdicts(rows)).toMatchObject({ a: 'region_open', b: 'region_open', c: 'closed' });
  });

  it('uniform errors everywhere are not regional, even where one region reached quorum', () => {
    const rows: RegionHealth[] = [
      { region: 'a', live: 10, open: 5, errorRate: 0.4, saturation: 0.9 },
      { region: 'b', live: 10, open: 3, errorRate: 0.4, saturation: 0.9 },
      { region: 'c', live: 10, open: 4, errorRate: 0.4, saturation: 0.9 },
    ];
    expect(verdicts(rows)).toEqual({ a: 'closed', b: 'closed', c: 'closed' });
  });

  it('quorum across the pool (live instances, or more than half the regions) is a global open', () => {
    expect(decideRegional([failed('a'), failed('b'), healthy('c')], P).pool).toBe('open');
    expect(verdicts([failed('a'), failed('b'), healthy('c')])).toEqual({ a: 'open', b: 'open', c: 'open' });
    // 6 of 10 live instances open, spread so no single region... still the pool's quorum
    const spread: RegionHealth[] = [
      { region: 'a', live: 5, open: 3, errorRate: 0.6, saturation: 0 },
      { region: 'b', live: 5, open: 3, errorRate: 0.6, saturation: 0 },
    ];
    expect(decideRegional(spread, P).pool).toBe('open');
  });

  it('a region already region_open stays so while at quorum, even while the rest is briefly unsettled', () => {
    const unsettled: RegionHealth[] = [
      failed('a'),
      { ...healthy('b'), errorRate: 0.5 },
      healthy('c'),
      healthy('d'),
    ];
    expect(verdicts(unsettled).a).toBe('closed');
    const kept = decideRegional(unsettled, P, new Map([['a', 'region_open']]));
    expect(kept.regions[0]!.verdict).toBe('region_open');
    // but never once the pool reached quorum
    const global = decideRegional(
      [failed('a'), failed('b'), healthy('c')],
      P,
      new Map([['a', 'region_open']]),
    );
    expect(global.regions[0]!.verdict).toBe('open');
  });

  it('a region taking moved traffic faster than the plans allow is shift_throttled', () => {
    const b = { ...healthy('b'), shiftedInRate: 50, shiftAllowedRate: 20 };
    expect(verdicts([failed('a'), b, healthy('c')])).toMatchObject({
      a: 'region_open',
      b: 'shift_throttled',
    });
    const within = { ...healthy('b'), shiftedInRate: 21, shiftAllowedRate: 20 };
    expect(verdicts([failed('a'), within, healthy('c')]).b).toBe('closed');
  });

  it('a region without live instances is closed and not counted', () => {
    const d = decideRegional([failed('a'), { ...healthy('b'), live: 0 }, healthy('c'), healthy('d')], P);
    expect(d.regions.map((r) => r.verdict)).toEqual(['region_open', 'closed', 'closed', 'closed']);
  });

  const regionArb = fc.record({
    live: fc.integer({ min: 0, max: 50 }),
    // integers scaled: fast-check's doubles crowd near 0
    openShare: fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
    errorRate: fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
    saturation: fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
  });
  const rowsArb = fc.array(regionArb, { minLength: 1, maxLength: 6 }).map((rs) =>
    rs.map((r, i): RegionHealth => ({
      region: `r${i}`,
      live: r.live,
      open: Math.round(r.openShare * r.live),
      errorRate: r.errorRate,
      saturation: r.saturation,
    })),
  );

  it('property: region_open only where the region reached quorum and never while the pool is open', () => {
    fc.assert(
      fc.property(rowsArb, (rows) => {
        const d = decideRegional(rows, P);
        for (const r of d.regions) {
          if (r.verdict === 'region_open') {
            expect(r.quorum.reached).toBe(true);
            expect(d.pool).toBe('closed');
          }
          if (d.pool === 'open') expect(r.verdict).toBe('open');
        }
      }),
    );
  });

  it('property: the same error rate in every region never yields region_open', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 11, max: 100 }).map((x) => x / 100),
        (rows, e) => {
          const uniform = rows.map((r) => ({ ...r, errorRate: e }));
          for (const r of decideRegional(uniform, P).regions) expect(r.verdict).not.toBe('region_open');
        },
      ),
    );
  });
});
