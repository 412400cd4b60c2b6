import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divideFallbackShares } from './RegionShares.js';

const live = (o: Record<string, number>) => new Map(Object.entries(o));

describe('divideFallbackShares', () => {
  it('divides equally over the regions with live instances by default', () => {
    const s = divideFallbackShares({ ratePerSec: 0.3 }, live({ a: 10, b: 1, c: 0 }));
    expect([...s.keys()]).toEqual(['a', 'b']);
    expect(s.get('a')).toBeCloseTo(0.15, 12);
    expect(s.get('b')).toBeCloseTo(0.15, 12);
  });

  it('follows regionWeights; a region the operator did not name weighs 1', () => {
    const s = divideFallbackShares(
      { ratePerSec: 1, regionWeights: { a: 3, b: 0 } },
      live({ a: 1, b: 5, c: 2 }),
    );
    expect(s.get('a')).toBeCloseTo(0.75, 12);
    expect(s.get('b')).toBe(0);
    expect(s.get('c')).toBeCloseTo(0.25, 12);
  });

  it('gives nothing when no region is live, or the rate is not positive', () => {
    expect(divideFallbackShares({ ratePerSec: 1 }, live({})).size).toBe(0);
    expect(divideFallbackShares({ ratePerSec: -1 }, live({ a: 1 })).get('a')).toBe(0);
    expect(divideFallbackShares({ ratePerSec: Number.NaN }, live({ a: 1 })).get('a')).toBe(0);
  });

  const arb = fc.record({
    rate: fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1000, noNaN: true })),
    regions: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 0, max: 50 })),
    weights: fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'x'),
      fc.oneof(fc.constant(0), fc.double({ min: 1e-3, max: 10, noNaN: true })),
    ),
  });

  it('property: shares are non-negative, sum to the rate (some live weight > 0) and never exceed it', () => {
    fc.assert(
      fc.property(arb, ({ rate, regions, weights }) => {
        const s = divideFallbackShares({ ratePerSec: rate, regionWeights: weights }, live(regions));
        let sum = 0;
        for (const [region, share] of s) {
          expect(regions[region]).toBeGreaterThan(0);
          expect(share).toBeGreaterThanOrEqual(0);
          sum += share;
        }
        expect(sum).toBeLessThanOrEqual(rate * (1 + 1e-12));
        const liveWeight = Object.entries(regions).some(([r, n]) => n > 0 && (weights[r] ?? 1) > 0);
        if (liveWeight) expect(sum).toBeCloseTo(rate, 9);
      }),
    );
  });

  it('property: proportional to the weights, whatever order the regions came in', () => {
    fc.assert(
      fc.property(arb, ({ rate, regions, weights }) => {
        const a = divideFallbackShares({ ratePerSec: rate, regionWeights: weights }, live(regions));
        const b = divideFallbackShares(
          { ratePerSec: rate, regionWeights: weights },
          new Map(Object.entries(regions).reverse()),
        );
        expect(new Map([...b].sort())).toEqual(new Map([...a].sort()));
        const ids = [...a.keys()];
        for (const x of ids)
          for (const y of ids) {
            const wx = weights[x] ?? 1;
            const wy = weights[y] ?? 1;
            if (wy > 0 && a.get(y)! > 0) expect(a.get(x)! / a.get(y)!).toBeCloseTo(wx / wy, 6);
          }
      }),
    );
  });
});
