import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fallbackOf, planFallback } from './FallbackPlan.js';
import { fallbackProbeRate } from './FallbackRules.js';

const fleet = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ instanceId: `i-${i}`, region: ['eu', 'us', 'ap'][i % 3]! }));

describe('planFallback / fallbackOf', () => {
  it('tells each instance its region share, the live count, the owner count and whether it owns', () => {
    const table = planFallback({ ratePerSec: 0.3, ownersPerRegion: 2 }, fleet(100), 'b');
    const eu = table.get('eu')!;
    expect(eu.live).toBe(34);
    expect(eu.owners).toHaveLength(2);
    const owner = fallbackOf(table, eu.owners[0]!, 'eu');
    expect(owner).toMatchObject({ probeOwner: true, regionLive: 34, owners: 2 });
    expect(owner.regionShare.ratePerSec).toBeCloseTo(0.1, 12);
    const other = fleet(100).find((l) => l.region === 'eu' && !eu.owners.includes(l.instanceId))!;
    expect(fallbackOf(table, other.instanceId, 'eu').probeOwner).toBe(false);
  });

  it('a region the table has not met yet has no share', () => {
    const table = planFallback({ ratePerSec: 0.3, ownersPerRegion: 2 }, fleet(3), 'b');
    expect(fallbackOf(table, 'new', 'mars')).toEqual({
      probeOwner: false,
      regionShare: { ratePerSec: 0 },
      regionLive: 0,
      owners: 0,
    });
  });

  it('counts an instance listed twice once', () => {
    const table = planFallback({ ratePerSec: 1, ownersPerRegion: 2 }, [...fleet(3), ...fleet(3)], 'b');
    expect(table.get('eu')!.live).toBe(1);
  });

  it('property: the fallback rates of a region sum to at most its share, before and after the maximum isolation', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 4 }),
        fc.double({ min: 0.001, max: 50, noNaN: true }),
        fc.string(),
        (n, k, rate, salt) => {
          const live = fleet(n);
          const table = planFallback({ ratePerSec: rate, ownersPerRegion: k }, live, salt);
          let total = 0;
          for (const [region, r] of table) {
            for (const isolatedFor of [0, 59_999, 60_000]) {
              let sum = 0;
              for (const l of live.filter((x) => x.region === region))
                sum += fallbackProbeRate(fallbackOf(table, l.instanceId, region), isolatedFor, 60_000);
              expect(sum).toBeLessThanOrEqual(r.ratePerSec * (1 + 1e-9));
              // every region spends its share: owners before, everyone after the isolation limit
              expect(sum).toBeCloseTo(r.ratePerSec, 9);
            }
            total += r.ratePerSec;
          }
          expect(total).toBeCloseTo(rate, 9);
        },
      ),
    );
  });
});
