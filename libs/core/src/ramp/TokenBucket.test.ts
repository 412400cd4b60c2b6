import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../time/Clock.js';
import { TokenBucket } from './TokenBucket.js';

describe('TokenBucket', () => {
  it('starts full and admits exactly `burst` calls at once', () => {
    const bucket = new TokenBucket(1, 3, new FakeClock());
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('starts with `initialTokens` when given (clamped to [0, burst]): its first token comes that much sooner', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 1, clock, 0.25);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilNext()).toBe(750);
    clock.advance(750);
    expect(bucket.tryTake()).toBe(true);
    expect(new TokenBucket(1, 2, clock, 5).msUntilNext()).toBe(0);
    const clamped = new TokenBucket(1, 2, clock, 5);
    expect([clamped.tryTake(), clamped.tryTake(), clamped.tryTake()]).toEqual([true, true, false]);
    expect(new TokenBucket(1, 1, clock, -3).msUntilNext()).toBe(1000);
  });

  it('refills one token after 1000/rate ms: not at T-1 ms, yes at T and T+1 ms', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(0.4, 1, clock); // one token per 2500 ms
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.msUntilNext()).toBe(2_500);
    clock.advance(2_499);
    expect(bucket.msUntilNext()).toBe(1);
    expect(bucket.tryTake()).toBe(false);
    clock.advance(1);
    expect(bucket.msUntilNext()).toBe(0);
    clock.advance(1);
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('never holds more than burst tokens however long it waits', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    clock.advance(60_000);
    expect([bucket.tryTake(), bucket.tryTake(), bucket.tryTake()]).toEqual([true, true, false]);
  });

  it('admits nothing at rate 0 once empty, and says Infinity', () => {
    const bucket = new TokenBucket(0, 1, new FakeClock());
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilNext()).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps earned tokens across reset instead of refilling, and caps them at the new burst', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 5, clock);
    for (let i = 0; i < 5; i++) bucket.tryTake();
    bucket.reset(1, 5); // the same plan again: no free tokens
    expect(bucket.tryTake()).toBe(false);
    clock.advance(10_000);
    bucket.reset(2, 1); // smaller burst: earned tokens are capped
    expect(bucket.tryTake()).toBe(true);
    expect(bucket.tryTake()).toBe(false);
    expect(bucket.msUntilNext()).toBe(500);
  });

  it('never admits more than burst + rate·t over any run of t ms (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { maxLength: 200 }),
        (rate, burst, gaps) => {
          const clock = new FakeClock();
          const bucket = new TokenBucket(rate, burst, clock);
          let admitted = 0;
          for (const gap of gaps) {
            clock.advance(gap);
            while (bucket.tryTake()) admitted += 1;
          }
          expect(admitted).toBeLessThanOrEqual(burst + (rate * clock.now()) / 1000 + 1e-6);
        },
      ),
    );
  });
});
