import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mathRng, seededRng } from './Rng.js';

describe('seededRng', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    const a = seededRng(42);
    const b = seededRng(42);
    const c = seededRng(43);
    const seqA = Array.from({ length: 5 }, () => a.next());
    const seqB = Array.from({ length: 5 }, () => b.next());
    const seqC = Array.from({ length: 5 }, () => c.next());
    expect(seqA).toEqual(seqB);
    expect(seqA).not.toEqual(seqC);
  });

  it('always yields numbers in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = seededRng(seed);
        for (let i = 0; i < 50; i++) {
          const x = rng.next();
          if (!(x >= 0 && x < 1)) return false;
        }
        return true;
      }),
    );
  });

  it('spreads values roughly uniformly over ten buckets', () => {
    const rng = seededRng(7);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) buckets[Math.floor(rng.next() * 10)]! += 1;
    for (const count of buckets) expect(count).toBeGreaterThan(800);
  });
});

describe('mathRng', () => {
  it('yields numbers in [0, 1)', () => {
    const x = mathRng.next();
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThan(1);
  });
});
