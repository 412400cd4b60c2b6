import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseProbeOwners, ownerScore, type LiveInstance } from './ProbeOwners.js';

const fleet = (n: number, regions = ['eu', 'us', 'ap']): LiveInstance[] =>
  Array.from({ length: n }, (_, i) => ({ instanceId: `i-${i}`, region: regions[i % regions.length]! }));

describe('chooseProbeOwners', () => {
  it('picks the ownersPerRegion lowest scores of each region, best first', () => {
    const live = fleet(30);
    const owners = chooseProbeOwners(live, 2, 'b1');
    expect([...owners.keys()].sort()).toEqual(['ap', 'eu', 'us']);
    for (const [region, ids] of owners) {
      const expected = live
        .filter((l) => l.region === region)
        .map((l) => l.instanceId)
        .sort((a, b) => ownerScore('b1', a) - ownerScore('b1', b))
        .slice(0, 2);
      expect(ids).toEqual(expected);
    }
  });

  it('a region with fewer live instances than owners: every one owns; zero owners: none', () => {
    const owners = chooseProbeOwners([{ instanceId: 'x', region: 'r' }], 2, 's');
    expect(owners.get('r')).toEqual(['x']);
    expect(chooseProbeOwners(fleet(6), 0, 's').get('eu')).toEqual([]);
  });

  it('different breakers (salts) spread the duty over different instances', () => {
    const live = fleet(300, ['eu']);
    const picks = new Set<string>();
    for (let b = 0; b < 20; b++)
      for (const id of chooseProbeOwners(live, 2, `b${b}`).get('eu')!) picks.add(id);
    expect(picks.size).toBeGreaterThan(20);
  });

  const arbFleet = fc.uniqueArray(
    fc.record({
      instanceId: fc.string({ minLength: 1, maxLength: 6 }),
      region: fc.constantFrom('eu', 'us', 'ap'),
    }),
    { selector: (l) => l.instanceId, maxLength: 60 },
  );

  it('property: owners are live instances of their region, min(count, live) of them', () => {
    fc.assert(
      fc.property(arbFleet, fc.integer({ min: 1, max: 5 }), fc.string(), (live, k, salt) => {
        const owners = chooseProbeOwners(live, k, salt);
        for (const [region, ids] of owners) {
          const here = live.filter((l) => l.region === region).map((l) => l.instanceId);
          expect(ids.length).toBe(Math.min(k, here.length));
          for (const id of ids) expect(here).toContain(id);
        }
      }),
    );
  });

  it('property: owners do not churn when an unrelated instance comes or goes', () => {
    fc.assert(
      fc.property(
        arbFleet,
        fc.record({
          instanceId: fc.string({ minLength: 7, maxLength: 9 }),
          region: fc.constantFrom('eu', 'us', 'ap'),
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.string(),
        (live, newcomer, k, salt) => {
          const before = chooseProbeOwners(live, k, salt);
          // a newcomer changes only its own region, and only by taking the last owner's place
          const after = chooseProbeOwners([...live, newcomer], k, salt);
          for (const [region, ids] of before) {
            const now = after.get(region)!;
            if (region !== newcomer.region) expect(now).toEqual(ids);
            else if (!now.includes(newcomer.instanceId)) expect(now).toEqual(ids);
            else expect(now.filter((id) => id !== newcomer.instanceId)).toEqual(ids.slice(0, now.length - 1));
          }
          // a non-owner leaving changes nothing; order of the live list does not matter either
          const owners = new Set([...before.values()].flat());
          const leaver = live.find((l) => !owners.has(l.instanceId));
          if (leaver) {
            const without = chooseProbeOwners(live.filter((l) => l !== leaver).reverse(), k, salt);
            expect(without).toEqual(before);
          }
        },
      ),
    );
  });
});
