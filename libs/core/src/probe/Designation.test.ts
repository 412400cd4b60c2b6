import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  designatedIn,
  designateProbers,
  designationHash,
  rankProbers,
  type ProberCandidate,
} from './Designation.js';

const fleet = (n: number): ProberCandidate[] =>
  Array.from({ length: n }, (_, i) => ({ instanceId: `worker-${i}`, live: true, demand: 1 }));

describe('designateProbers', () => {
  it('picks the same probers for the same epoch whatever the order of candidates', () => {
    const c = fleet(50);
    const a = designateProbers(c, 2, 7);
    expect(a).toHaveLength(2);
    expect(designateProbers([...c].reverse(), 2, 7)).toEqual(a);
  });

  it('skips dead, excluded and idle instances', () => {
    const c: ProberCandidate[] = [
      { instanceId: 'dead', live: false, demand: 5 },
      { instanceId: 'failed', live: true, demand: 5, excluded: true },
      { instanceId: 'idle', live: true, demand: 0 },
      { instanceId: 'ok', live: true, demand: 0.1 },
    ];
    expect(designateProbers(c, 3, 1)).toEqual(['ok']);
    expect(designateProbers(c, 0, 1)).toEqual([]);
  });

  it('designates the next in rank when the first prober is excluded', () => {
    const c = fleet(20);
    const [first, second] = designateProbers(c, 2, 3);
    const after = designateProbers(
      c.map((x) => (x.instanceId === first ? { ...x, excluded: true } : x)),
      1,
      3,
    );
    expect(after).toEqual([second]);
  });

  it('spreads the duty over epochs (a different first prober in most epochs)', () => {
    const firsts = new Set(Array.from({ length: 40 }, (_, e) => designateProbers(fleet(100), 1, e)[0]));
    expect(firsts.size).toBeGreaterThan(20);
  });

  it('property: at most count, distinct, all eligible, and a prefix of a larger designation', () => {
    const cand = fc.record({
      instanceId: fc.string({ minLength: 1, maxLength: 5 }),
      live: fc.boolean(),
      demand: fc.double({ min: 0, max: 10, noNaN: true }),
      excluded: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(cand, { maxLength: 40 }), fc.nat(6), fc.nat(1000), (cs, count, epoch) => {
        const d = designateProbers(cs, count, epoch);
        expect(d.length).toBeLessThanOrEqual(count);
        expect(new Set(d).size).toBe(d.length);
        for (const id of d) {
          expect(cs.some((c) => c.instanceId === id && c.live && !c.excluded && c.demand > 0)).toBe(true);
        }
        expect(designateProbers(cs, count + 1, epoch).slice(0, d.length)).toEqual(d);
      }),
    );
  });

  it('hash is a 32-bit unsigned integer that depends on the epoch', () => {
    const h = designationHash(1, 'a');
    expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
    expect(designationHash(2, 'a')).not.toBe(h);
  });
});

describe('rankProbers / designatedIn', () => {
  const candidate = fc.record({
    instanceId: fc.constantFrom(...Array.from({ length: 30 }, (_, i) => `i${i}`)),
    live: fc.boolean(),
    demand: fc.constantFrom(0, 1, 2.5),
    excluded: fc.boolean(),
  });

  it('property: a ranking of the snapshot answers for any instance exactly as designateProbers over the snapshot with that instance replaced', () => {
    let designated = 0;
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 40 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 50 }),
        candidate,
        (snapshot, count, epoch, self) => {
          const ranking = rankProbers(snapshot, count, epoch);
          const others = snapshot.filter((c) => c.instanceId !== self.instanceId);
          const expected = designateProbers([...others, self], count, epoch).includes(self.instanceId);
          const eligible = self.live && !self.excluded && self.demand > 0;
          expect(designatedIn(ranking, self.instanceId, eligible)).toBe(expected);
          if (expected) designated += 1;
        },
      ),
      { numRuns: 3000, seed: 20261203 },
    );
    expect(designated).toBeGreaterThan(300);
  });
});
