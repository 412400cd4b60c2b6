import { FakeClock, seededRng, type Rng } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClassAdmission, DEMAND_WINDOW_MS } from './ClassAdmission.js';

const one = { ratePerSec: 1, burst: 1, concurrency: 1 };
/** an rng whose every draw is `u` */
const always = (u: number): Rng => ({ next: () => u });

describe('ClassAdmission', () => {
  it('starts with a full burst the first time it is admitted', () => {
    const a = new ClassAdmission(new FakeClock(0), always(0.5));
    expect(a.admit()).toBe(false); // never admitted
    a.apply(one);
    expect(a.admit()).toBe(true);
    a.release();
    expect(a.admit()).toBe(false);
  });

  it('dropped and admitted again carries what it had left, never a fresh burst (edges at 1/rate ± 1 ms)', () => {
    const clock = new FakeClock(0);
    const a = new ClassAdmission(clock, always(0.5));
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

  it('entering at a window move it holds a random part of one token, whatever it carried; staying, what it had', () => {
    const clock = new FakeClock(0);
    const fresh = new ClassAdmission(clock, always(0.25));
    fresh.apply(one, true); // never admitted: a full bucket, but it enters at the move
    expect(fresh.msUntilToken()).toBe(750);
    const frozenFull = new ClassAdmission(clock, always(0.25));
    frozenFull.apply(one);
    frozenFull.apply(null); // left with its token unspent
    clock.advance(5000);
    frozenFull.apply(one, true);
    expect(frozenFull.admit()).toBe(false);
    expect(frozenFull.msUntilToken()).toBe(750);
    clock.advance(750);
    expect(frozenFull.admit()).toBe(true);
    // an instance already admitted keeps its bucket through the move
    const staying = new ClassAdmission(clock, always(0.25));
    staying.apply(one);
    staying.apply(one, true);
    expect(staying.admit()).toBe(true);
  });

  it('property: a cohort entering at one window move sends its first calls spread over one token, not at once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.boolean(), (seed, usedBefore) => {
        const clock = new FakeClock(0);
        const rng = seededRng(seed);
        const cohort = Array.from({ length: 200 }, () => new ClassAdmission(clock, rng));
        // admitted once and left unspent: frozen full
        if (usedBefore)
          for (const a of cohort) {
            a.apply(one);
            a.apply(null);
          }
        for (const a of cohort) a.apply(one, true);
        // each instance sends as soon as it may (a backlog that never empties); first sends per 100 ms
        // of the token's second: uniform is 20 a bin, lockstep (a full token each) all 200 in the first
        const bins = new Array<number>(10).fill(0);
        const sent = new Set<ClassAdmission>();
        for (let t = 0; t <= 1000; t += 10) {
          for (const a of cohort)
            if (!sent.has(a) && a.admit()) {
              sent.add(a);
              bins[Math.min(9, Math.floor(t / 100))]! += 1;
            }
          clock.advance(10);
        }
        expect(sent.size).toBe(200);
        expect(Math.max(...bins)).toBeLessThanOrEqual(40);
      }),
      { numRuns: 50 },
    );
  });

  it('property: however admission churns, calls ≤ initial burst + rate × time admitted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ admitted: fc.boolean(), ms: fc.integer({ min: 1, max: 3000 }) }), {
          maxLength: 40,
        }),
        (spells) => {
          const clock = new FakeClock(0);
          const a = new ClassAdmission(clock, always(0.5));
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
    const a = new ClassAdmission(new FakeClock(0), always(0.5));
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
    const a = new ClassAdmission(new FakeClock(0), always(0.5));
    a.wanted = 10;
    expect(a.closeDemand(250)).toBe(40);
    a.wanted = 3;
    expect(a.closeDemand(2000)).toBe(1.5);
    expect(a.closeDemand(1000)).toBe(0);
  });
});
