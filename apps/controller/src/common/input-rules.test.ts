import { describe, expect, it } from 'vitest';
import { bodyProblem } from './input-rules.js';

describe('bodyProblem (the parsed body, before any mapping)', () => {
  it('passes an ordinary body', () => {
    expect(bodyProblem({ a: [1, { b: 'déjà 🔥' }], c: null })).toBeNull();
  });

  it('refuses deep nesting without recursing (100,000 levels)', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(bodyProblem(deep)).toMatch(/^body nests deeper than 16 levels/);
  });

  it('refuses long arrays and bad strings or keys, naming where', () => {
    expect(bodyProblem({ xs: new Array(1001).fill(0) })).toBe('xs must hold at most 1000 entries');
    expect(bodyProblem({ a: [{ b: 'x\u0000' }] })).toMatch(/^a\.0\.b must not hold control characters/);
    expect(bodyProblem({ m: { 'k\ud800': 1 } })).toMatch(
      /^m: a field name must be well-formed Unicode \(lone surrogate U\+D800/,
    );
  });
});
