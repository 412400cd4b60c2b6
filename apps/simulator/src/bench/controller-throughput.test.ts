// Which cases of the controller bench BENCH_CASES selects (the bench itself runs with `npm run bench`).
import { describe, expect, it } from 'vitest';
import { CASES, selectedCases } from './controller-throughput.js';

describe('selectedCases', () => {
  it('selects every case when BENCH_CASES is unset or blank', () => {
    expect([...selectedCases(undefined)]).toEqual([...CASES]);
    expect([...selectedCases(' , ')]).toEqual([...CASES]);
  });

  it('selects only the named cases', () => {
    expect([...selectedCases('closed-1000, ramping')]).toEqual(['closed-1000', 'ramping']);
  });

  it('refuses an unknown case, naming it and the variable', () => {
    expect(() => selectedCases('closed-1000,rampin')).toThrow(/BENCH_CASES: unknown case "rampin"/);
  });
});
