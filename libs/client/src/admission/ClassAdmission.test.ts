import { FakeClock } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClassAdmission, DEMAND_WINDOW_MS } from './ClassAdmission.js';

const one = { ratePerSec: 1, burst: 1, concurrency: 1 };

describe('ClassAdmission', () => {
  it('starts with a full burst the first time it is admitted', () => {
    const a = new ClassAdmission(new FakeClock(0));
    expect(a.admit()).toBe(false); // never admitted
    a.apply(one);
    expect(a.admit()).toBe(true);
    a.release();
    expect(a.admit()).toBe(false);
  });

  it('dropped and admitted again carries what it had left, never a fresh burst (edges at 1/rate ± 1 ms)', () => {
    const clock = new FakeClock(0);
    const a = new ClassAdmission(clock);
    a.apply(one);
    expect(a.admit()).toBe(true);
    a.release();
    a.apply(null);
    clock.advance(10_000); // no tokens accrue while not admitted
    a.apply(one);
    expect(a.admit()).toBe(false);
    clock.advance(999);
    expect(a.admit()).toBe(false);
    clock.advance(1);
    expect(a.admit()).toBe(true);
  });

  it('property: however admission churns, calls ≤ initial burst + rate × time admitted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ admitted: fc.boolean(), ms: fc.integer({ min: 1, max: 3000 }) }), {
          maxLength: 40,
        }),
        (spells) => {
          const clock = new FakeClock(0);
          const a = new ClassAdmission(clock);
          let calls = 0;
          let admittedMs = 0;
          for (const spell of spells) {
            a.apply(spell.admitted ? one : null);
            for (let t = 0; t < spell.ms; t += 50) {
              if (a.admit()) {
                calls += 1;
                a.release();
              }
              clock.advance(Math.min(50, spell.ms - t));
            }
            if (spell.admitted) admittedMs += spell.ms;
          }
          expect(calls).toBeLessThanOrEqual(1 + Math.floor(admittedMs / 1000) + 1);
        },
      ),
    );
  });

  it('reports demand over at least the last second, so short ticks do not flicker between 0 and a burst', () => {
    const a = new ClassAdmission(new FakeClock(0));
    const rates: number[] = [];
    for (let tick = 0; tick < 8; tick++) {
      if (tick % 2 === 0) a.wanted += 1; // a call every 500 ms, ticks of 250 ms
      rates.push(a.closeDemand(250));
    }
    // once a second of ticks is kept, every report is 2 calls/s
    expect(rates.slice(3)).toEqual([2, 2, 2, 2, 2]);
    expect(DEMAND_WINDOW_MS).toBe(1000);
  });

  it('a tick of a second or more reports its own rate only', () => {
    const a = new ClassAdmission(new FakeClock(0));
    a.wanted = 10;
    expect(a.closeDemand(250)).toBe(40);
    a.wanted = 3;
    expect(a.closeDemand(2000)).toBe(1.5);
    expect(a.closeDemand(1000)).toBe(0);
  });
});
