import { FakeClock } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { ROUTED_WINDOWS, ShiftRouter } from './ShiftRouter.js';

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
    expect(first).toEqual(['b', null, null]); // one token at most: never ahead of the plan
    clock.advance(500);
    expect(r.route('a', false, ['a', 'b'])).toBe('b');
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
    expect(r.movedCalls()).toEqual({ b: 2 });
  });

  it('moves nothing without a shift, nor to a region the caller did not list', () => {
    const r = new ShiftRouter(new FakeClock(0));
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
    r.apply(shift([{ region: 'b', ratePerSec: 5 }]));
    expect(r.route('a', false, ['a', 'c'])).toBeNull();
    r.apply(null);
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
  });

  it('reports moves as rates per region over the last ROUTED_WINDOWS heartbeat windows', () => {
    const clock = new FakeClock(0);
    const r = new ShiftRouter(clock);
    r.apply(shift([{ region: 'b', ratePerSec: 4 }]));
    r.route('a', false, ['a', 'b']);
    clock.advance(250);
    r.route('a', false, ['a', 'b']);
    r.route('a', true, ['a', 'b']); // home: not a move
    expect(r.closeWindow(500)).toEqual({ b: 4 }); // 2 calls in 0.5 s
    for (let k = 1; k < ROUTED_WINDOWS; k++)
      expect(r.closeWindow(500)).toEqual({ b: Math.round((2 / (0.5 * (k + 1))) * 1000) / 1000 });
    expect(r.closeWindow(500)).toBeUndefined(); // the window with the moves slid out
    expect(r.movedCalls()).toEqual({ b: 2 });
  });
});
