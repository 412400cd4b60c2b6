import { FakeClock } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { ShiftRouter } from './ShiftRouter.js';

const shift = (receivers: { region: string; ratePerSec: number }[]) => ({
  source: 'a',
  mode: 'shifting' as const,
  receivers,
  expiresAt: null,
});

describe('ShiftRouter', () => {
  it('stays home while home admits, whatever the shift', () => {
    const r = new ShiftRouter(new FakeClock(0));
    r.apply(shift([{ region: 'b', ratePerSec: 10 }]));
    expect(r.route('a', true, ['a', 'b'])).toBe('a');
    expect(r.movedCalls()).toEqual({});
  });

  it('while home is paused, moves calls to a receiver within its rate, then degrades in place', () => {
    const clock = new FakeClock(0);
    const r = new ShiftRouter(clock);
    r.apply(shift([{ region: 'b', ratePerSec: 2 }]));
    const first = [1, 2, 3].map(() => r.route('a', false, ['a', 'c', 'b']));
    expect(first).toEqual(['b', 'b', null]); // a burst of 2 at 2/s
    clock.advance(500);
    expect(r.route('a', false, ['a', 'b'])).toBe('b');
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
    expect(r.movedCalls()).toEqual({ b: 3 });
  });

  it('moves nothing without a shift, nor to a region the caller did not list', () => {
    const r = new ShiftRouter(new FakeClock(0));
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
    r.apply(shift([{ region: 'b', ratePerSec: 5 }]));
    expect(r.route('a', false, ['a', 'c'])).toBeNull();
    r.apply(null);
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
  });
});
