import { FakeClock, seededRng, type Rng } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { ROUTED_WINDOWS, ShiftRouter } from './ShiftRouter.js';

const shift = (receivers: { region: string; ratePerSec: number }[]) => ({
  source: 'a',
  mode: 'shifting' as const,
  receivers,
  expiresAt: null,
});

/** an Rng that always says `x` (a new receiver's bucket then starts with x of one token) */
const fakeRngAlways = (x: number): Rng => ({ next: () => x });

describe('ShiftRouter', () => {
  it('stays home while home admits, whatever the shift', () => {
    const r = new ShiftRouter(new FakeClock(0), fakeRngAlways(0.5));
    r.apply(shift([{ region: 'b', ratePerSec: 10 }]));
    expect(r.route('a', true, ['a', 'b'])).toBe('a');
    expect(r.movedCalls()).toEqual({});
  });

  it('while home is paused, moves calls to a receiver within its rate, then degrades in place', () => {
    const clock = new FakeClock(0);
    const r = new ShiftRouter(clock, fakeRngAlways(0.5));
    r.apply(shift([{ region: 'b', ratePerSec: 2 }]));
    // a new receiver starts with half a token (burst 1): nothing moves until the other half is earned
    expect(r.route('a', false, ['a', 'c', 'b'])).toBeNull();
    clock.advance(250);
    expect([1, 2].map(() => r.route('a', false, ['a', 'c', 'b']))).toEqual(['b', null]);
    // then one token at most: never ahead of the plan
    clock.advance(2000);
    expect([1, 2, 3].map(() => r.route('a', false, ['a', 'b']))).toEqual(['b', null, null]);
    expect(r.movedCalls()).toEqual({ b: 2 });
  });

  it('moves nothing without a shift, nor to a region the caller did not list', () => {
    const r = new ShiftRouter(new FakeClock(0), fakeRngAlways(0.5));
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
    r.apply(shift([{ region: 'b', ratePerSec: 5 }]));
    expect(r.route('a', false, ['a', 'c'])).toBeNull();
    r.apply(null);
    expect(r.route('a', false, ['a', 'b'])).toBeNull();
  });

  it('reports moves as rates per region over the last ROUTED_WINDOWS heartbeat windows', () => {
    const clock = new FakeClock(0);
    const r = new ShiftRouter(clock, fakeRngAlways(1)); // starts with a whole token
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

  it("a region's instances given one new shift move at the region's rate, not one call each at once", () => {
    // 50 instances, the region's first step 1 call/s to b: 0.02/s each (a burst of one)
    const clock = new FakeClock(0);
    const rng = seededRng(7);
    const routers = Array.from({ length: 50 }, () => new ShiftRouter(clock, rng));
    for (const r of routers) r.apply(shift([{ region: 'b', ratePerSec: 0.02 }]));
    const perSecond: number[] = [];
    for (let s = 0; s < 50; s++) {
      perSecond.push(routers.filter((r) => r.route('a', false, ['a', 'b']) === 'b').length);
      clock.advance(1000);
    }
    // every instance moves its first call within one token's time (50 s), spread over it
    expect(perSecond.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(45);
    for (let s = 0; s + 5 <= perSecond.length; s++) {
      const window = perSecond.slice(s, s + 5).reduce((a, b) => a + b, 0);
      expect(window, `calls moved in seconds ${s}..${s + 4}`).toBeLessThanOrEqual(15);
    }
  });
});
