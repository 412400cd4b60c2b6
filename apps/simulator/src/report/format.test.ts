import { describe, expect, it } from 'vitest';
import { percent, seedsOf } from './format.js';

describe('the report formats', () => {
  it('writes a share to a tenth of a point, "-" when there is none', () => {
    expect(percent(0.9642)).toBe('96.4 %');
    expect(percent(null)).toBe('-');
  });

  it('writes seeds as parseSeeds reads them: runs of three or more as ranges', () => {
    expect(seedsOf([7])).toBe('seed 7');
    expect(seedsOf([1, 3, 7])).toBe('seeds 1, 3, 7');
    expect(seedsOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])).toBe('seeds 1–13');
    expect(seedsOf([2, 4, 5, 6, 8, 9, 10, 11, 12, 13])).toBe('seeds 2, 4–6, 8–13');
    expect(seedsOf([4, 5])).toBe('seeds 4, 5');
  });
});
