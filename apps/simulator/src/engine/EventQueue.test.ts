import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue } from './EventQueue.js';

describe('EventQueue', () => {
  it('pops events in time order, ties in insertion order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 200 }), (times) => {
        const q = new EventQueue();
        const fired: [number, number][] = [];
        times.forEach((t, i) => q.push(t, () => fired.push([t, i])));
        while (q.size > 0) q.pop()!();
        const expected = times
          .map((t, i) => [t, i] as [number, number])
          .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect(fired).toEqual(expected);
      }),
    );
  });

  it('reports Infinity and undefined when empty', () => {
    const q = new EventQueue();
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY);
    expect(q.pop()).toBeUndefined();
  });
});
