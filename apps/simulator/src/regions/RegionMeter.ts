// Counts the calls each region's endpoint receives, split into the region's own traffic and the
// traffic moved in from other regions, and measures moved-in against the region's headroom (its
// capacity minus its own traffic) over sliding 5-s windows. A measurement, not a policy.
import { roundTo } from '@recloser/core';
import type { RegionRunFigures, RegionalSeriesPoint } from './RegionalFigures.js';

export const SHIFT_WINDOW_S = 5;
/** headroom below this counts as this (a ratio against zero headroom would be infinite) */
const MIN_HEADROOM_PER_SEC = 1;

interface RegionCounts {
  native: number[];
  moved: number[];
  figures: RegionRunFigures;
}

export class RegionMeter {
  private readonly byRegion = new Map<string, RegionCounts>();
  private readonly series: RegionalSeriesPoint[] = [];
  private second = 0;

  constructor(
    regions: readonly string[],
    /** requests/s each region's endpoint serves at full health */
    private readonly capacityPerSec: (region: string) => number,
  ) {
    for (const r of regions)
      this.byRegion.set(r, {
        native: [0],
        moved: [0],
        figures: { nativeCalls: 0, movedInCalls: 0, movedInSucceeded: 0, maxShiftOverHeadroom: 0 },
      });
  }

  sent(origin: string, target: string): void {
    const c = this.byRegion.get(target);
    if (!c) return;
    if (origin === target) {
      c.native[c.native.length - 1]! += 1;
      c.figures.nativeCalls += 1;
    } else {
      c.moved[c.moved.length - 1]! += 1;
      c.figures.movedInCalls += 1;
    }
  }

  movedSucceeded(target: string): void {
    const c = this.byRegion.get(target);
    if (c) c.figures.movedInSucceeded += 1;
  }

  /** calls/s moved into the region over the last whole window */
  movedInRate(region: string): number {
    const c = this.byRegion.get(region);
    return c ? windowRate(c.moved) : 0;
  }

  /** Closes one second: updates the ratios and the series, then opens the next second. */
  endSecond(t: number, verdict: Record<string, string>, allowed: Record<string, number> = {}): void {
    this.second += 1;
    const point: RegionalSeriesPoint = { t, movedIn: {}, headroom: {}, verdict, allowed };
    for (const [region, c] of this.byRegion) {
      // the second just ended joins the window; the new one opens
      c.native.push(0);
      c.moved.push(0);
      if (c.native.length > SHIFT_WINDOW_S + 1) c.native.shift();
      if (c.moved.length > SHIFT_WINDOW_S + 1) c.moved.shift();
      const moved = windowRate(c.moved);
      const headroom = Math.max(MIN_HEADROOM_PER_SEC, this.capacityPerSec(region) - windowRate(c.native));
      point.movedIn[region] = roundTo(moved);
      point.headroom[region] = roundTo(headroom);
      if (this.second >= SHIFT_WINDOW_S && moved > 0)
        c.figures.maxShiftOverHeadroom = Math.max(c.figures.maxShiftOverHeadroom, moved / headroom);
    }
    this.series.push(point);
  }

  figures(): {
    regions: Record<string, RegionRunFigures>;
    maxShiftOverHeadroom: number;
    series: RegionalSeriesPoint[];
  } {
    const regions: Record<string, RegionRunFigures> = {};
    let max = 0;
    for (const [r, c] of this.byRegion) {
      regions[r] = { ...c.figures, maxShiftOverHeadroom: roundTo(c.figures.maxShiftOverHeadroom) };
      max = Math.max(max, c.figures.maxShiftOverHeadroom);
    }
    return { regions, maxShiftOverHeadroom: roundTo(max), series: this.series };
  }
}

/** Mean per second over the whole seconds in the window (the current, open second excluded). */
function windowRate(counts: readonly number[]): number {
  const whole = counts.slice(0, -1);
  if (whole.length === 0) return 0;
  return whole.reduce((s, x) => s + x, 0) / whole.length;
}
