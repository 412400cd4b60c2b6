import { describe, expect, it } from 'vitest';
import { roundTo } from './Round.js';

describe('roundTo', () => {
  it('rounds to 3 decimals by default, the same as Math.round(x * 1000) / 1000', () => {
    expect(roundTo(1.23456)).toBe(1.235);
    expect(roundTo(0.0004)).toBe(0);
    expect(roundTo(2 / 3)).toBe(0.667);
    expect(roundTo(-1.2344)).toBe(-1.234);
    for (const x of [0.1 + 0.2, 1e-7, 12.3455, 99.9995, -0.0005, 123456.789012])
      expect(roundTo(x)).toBe(Math.round(x * 1000) / 1000);
  });

  it('takes another number of decimals', () => {
    expect(roundTo(1.23456, 1)).toBe(1.2);
    expect(roundTo(1.25, 1)).toBe(1.3);
    expect(roundTo(1234.5, 0)).toBe(1235);
  });

  it('passes non-finite input through', () => {
    expect(roundTo(Number.NaN)).toBeNaN();
    expect(roundTo(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});
