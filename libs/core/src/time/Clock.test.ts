import { describe, expect, it } from 'vitest';
import { FakeClock, systemClock } from './Clock.js';

describe('FakeClock', () => {
  it('starts at the given time and moves only when advanced or set', () => {
    const clock = new FakeClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(250);
    expect(clock.now()).toBe(1_250);
    clock.set(5_000);
    expect(clock.now()).toBe(5_000);
  });

  it('refuses to go backwards', () => {
    const clock = new FakeClock(100);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.set(99)).toThrow(RangeError);
    expect(clock.now()).toBe(100);
  });
});

describe('systemClock', () => {
  it('is near the wall clock and never goes backwards', () => {
    const a = systemClock.now();
    const b = systemClock.now();
    expect(b).toBeGreaterThanOrEqual(a);
    expect(Math.abs(a - Date.now())).toBeLessThan(60_000);
  });
});
