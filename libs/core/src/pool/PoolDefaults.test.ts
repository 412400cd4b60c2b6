import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL, mergePool, poolForGroup } from './PoolDefaults.js';
import { defaultPoolId } from './PoolId.js';

describe('poolForGroup', () => {
  const bound = { ...DEFAULT_POOL('shared', 'llm'), groups: ['orders'] };
  const open = DEFAULT_POOL('open', 'llm');

  it('gives a bound pool to its groups only; any other group draws on the dependency’s default pool', () => {
    expect(poolForGroup(bound, 'llm', 'orders')).toBe(bound);
    expect(poolForGroup(bound, 'llm', 'billing').id).toBe(defaultPoolId('llm'));
    expect(poolForGroup(bound, 'llm', 'billing').groups).toBeUndefined();
  });

  it('gives an unbound pool to every group, and the default pool when none is configured', () => {
    expect(poolForGroup(open, 'llm', 'billing')).toBe(open);
    expect(poolForGroup(null, 'llm', 'billing').id).toBe(defaultPoolId('llm'));
  });

  it('answers the configured pool when no group is named (views of the pool itself)', () => {
    expect(poolForGroup(bound, 'llm', undefined)).toBe(bound);
  });

  it('keeps a binding through a merge, and a partial body without groups keeps the base’s', () => {
    expect(mergePool({ groups: ['a'] }).groups).toEqual(['a']);
    expect(mergePool({ probe: { concurrency: 3 } }, { ...mergePool({}), groups: ['b'] }).groups).toEqual([
      'b',
    ]);
    expect('groups' in mergePool({})).toBe(false);
  });
});
