import { describe, expect, it } from 'vitest';
import { Series, SLOT_MS } from './Recorder.js';
import { peakPerSecond } from './Summary.js';

/** attempts at the given times (ms), one each */
function slotsOf(times: number[]): Series {
  const slots = new Series();
  for (const t of times) slots.add(Math.floor(t / SLOT_MS));
  return slots;
}
const burst = (fromMs: number, count: number, spacingMs: number): number[] =>
  Array.from({ length: count }, (_, k) => fromMs + k * spacingMs);

describe('peakPerSecond: the most attempts in a 1-s window lying wholly inside the span', () => {
  it('does not count calls sent after the span ends in the clock second it ends in', () => {
    // 10/s until 5.0 s, then 200/s from 5.1 s: a span ending at 5.03 s must not see the 200/s
    const slots = slotsOf([...burst(0, 50, 100), ...burst(5_100, 200, 5)]);
    expect(peakPerSecond(slots, 0, 5_030)).toEqual({ peak: 10, atMs: 0 });
    // a span that includes them sees them, in the window that starts where they do
    expect(peakPerSecond(slots, 0, 6_100)).toEqual({ peak: 200, atMs: 5_100 });
  });

  it('finds a burst that straddles two clock seconds (a bucket per clock second halves it)', () => {
    const slots = slotsOf(burst(1_500, 100, 10)); // 100 calls between 1.5 s and 2.5 s
    expect(peakPerSecond(slots, 0, 4_000)).toEqual({ peak: 100, atMs: 1_500 });
  });

  it('a span shorter than a second counts what lies in it', () => {
    const slots = slotsOf(burst(0, 30, 100));
    expect(peakPerSecond(slots, 1_000, 1_500).peak).toBe(5);
    expect(peakPerSecond(slots, 2_000, 2_000).peak).toBe(0);
  });
});
