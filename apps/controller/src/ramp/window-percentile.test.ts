import { describe, expect, it } from 'vitest';
import { combineWindowPercentiles } from './window-percentile.js';

describe('combineWindowPercentiles', () => {
  it('is null without windows that carried attempts', () => {
    expect(combineWindowPercentiles([])).toBeNull();
    expect(combineWindowPercentiles([{ value: 100, weight: 0 }])).toBeNull();
  });

  it('is the value below which windows holding 95 % of the attempts lie', () => {
    const windows = [
      { value: 100, weight: 96 },
      { value: 9000, weight: 4 },
    ];
    expect(combineWindowPercentiles(windows)).toBe(100);
  });

  it('follows the slow windows once they carry more than 5 % of the attempts', () => {
    const windows = [
      { value: 100, weight: 90 },
      { value: 9000, weight: 10 },
    ];
    expect(combineWindowPercentiles(windows)).toBe(9000);
  });

  it('ignores non-finite figures', () => {
    expect(
      combineWindowPercentiles([
        { value: Number.NaN, weight: 5 },
        { value: 7, weight: 1 },
      ]),
    ).toBe(7);
  });
});
