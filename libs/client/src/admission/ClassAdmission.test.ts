import { FakeClock, seededRng, type Rng } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClassAdmission, DEMAND_WINDOW_MS } from './ClassAdmission.js';

const one = { ratePerSec: 1, burst: 1, concurrency: 1 };
/** an rng that always answers `v`: where a new bucket's first token lies is then known */
const fixedRng = (v: number): Rng => ({ next: () => v });

describe('ClassAdmission', () => {
  it('starts at a random part of one token the first time it is admitted (edges at 750 ms ± 1 ms)', () => {
    const clock = new FakeClock(0);
    const a = new ClassAdmission(clock, fixedRng(0.25));
    expect(a.admit()).toBe(false); // never admitted
    a.apply(one);
    expect(a.admit()).toBe(false);
    clock.advance(749);
    expect(a.admit()).toBe(false);
    clock.advance(1);
    expect(a.admit()).toBe(true);
  });

  it('instances admitted at the same moment spread their first calls over one token, not one burst', () => {
    const clock = new FakeClock(0);
    const rng = seededRng(7);
    const fleet = Array.from({ length: 200 }, () => new ClassAdmission(clock, rng));
    for (const a of fleet) a.apply(one);
    const firstCallTenth = new Array<number>(10).fill(0);
    const waiting = new Set(fleet);
    for (let ms = 0; ms < 1000; ms += 1) {
      for (const a of waiting)
        if (a.admit()) {
          firstCallTenth[Math.floor(ms / 100)]! += 1;
          waiting.delete(a);
        }
      clock.advance(1);
    }
    expect(waiting.size).toBe(0); // every instance called within one token's time
    // 20 a tenth on average; a full bucket put all 200 in the first millisecond
    expect(Math.max(...firstCallTenth)).toBeLessThanOrEqual(32);
    expect(Math.min(...firstCallTenth)).toBeGreaterThanOrEqual(10);
  });

  it('dropped and admitted again carries what it had left, never a fresh burst (edges at 1/rate ± 1 ms)', () => {
    const clock = new FakeClock(0);
    const a = new ClassAdmission(clock, fixedRng(0.5));
    a.apply(one);
    clock.advance(500);
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
          const a = new ClassAdmission(clock, seededRng(spells.length));
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
    const a = new ClassAdmission(new FakeClock(0), fixedRng(0));
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
    const a = new ClassAdmission(new FakeClock(0), fixedRng(0));
    a.wanted = 10;
    expect(a.closeDemand(250)).toBe(40);
    a.wanted = 3;
    expect(a.closeDemand(2000)).toBe(1.5);
    expect(a.closeDemand(1000)).toBe(0);
  });
});
