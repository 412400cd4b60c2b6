import { describe, expect, it } from 'vitest';
import { demandProblem } from './demand-map.validator.js';

describe('demandProblem', () => {
  it('accepts class → non-negative rate maps', () => {
    expect(demandProblem({ standard: 12.5, long_context: 0 })).toBeNull();
    expect(demandProblem({})).toBeNull();
  });

  it('names what is wrong', () => {
    expect(demandProblem([1])).toBe('must be an object of traffic class → requests per second');
    expect(demandProblem('x')).toBe('must be an object of traffic class → requests per second');
    expect(demandProblem({ standard: -1 })).toBe('.standard must be a non-negative number');
    expect(demandProblem({ standard: '3' })).toBe('.standard must be a non-negative number');
    expect(demandProblem({ standard: Number.POSITIVE_INFINITY })).toBe(
      '.standard must be a non-negative number',
    );
    expect(demandProblem({ 'bad name!': 1 })).toBe('has an invalid traffic class name "bad name!"');
    expect(demandProblem(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, 1])))).toBe(
      'must name at most 32 traffic classes',
    );
  });
});
