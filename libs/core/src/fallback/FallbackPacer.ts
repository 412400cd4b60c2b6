// Paces one instance's fallback probes: Poisson timing (exponential gaps, so owners do not probe in
// step) gated by a budget that accrues at the instance's rate from nothing and holds at most one
// call. Whatever the draws, the calls taken by time t never exceed the rate integrated since the
// pacer started, so a region's instances together never spend more than its share has accrued.
import type { Rng } from '../random/Rng.js';
import { fallbackProbeSpacingMs } from '../probe/FallbackProbeSpacing.js';

/** calls the budget can hold: no burst after a quiet spell */
export const FALLBACK_BURST = 1;

export class FallbackPacer {
  private rate = 0;
  private budget = 0;
  private at: number;
  private nextAt = Number.POSITIVE_INFINITY;

  constructor(now: number) {
    this.at = now;
  }

  get ratePerSec(): number {
    return this.rate;
  }

  /** Changes the rate from `now` (what accrued before is kept; the next Poisson time is drawn anew). */
  setRate(now: number, ratePerSec: number, rng: Rng): void {
    const rate = Number.isFinite(ratePerSec) && ratePerSec > 0 ? ratePerSec : 0;
    this.accrue(now);
    if (rate === this.rate && this.nextAt !== Number.POSITIVE_INFINITY) return;
    this.rate = rate;
    this.nextAt = now + fallbackProbeSpacingMs(rate, rng);
  }

  /** Takes one call if its Poisson time has come and the budget holds one. */
  tryTake(now: number, rng: Rng): boolean {
    this.accrue(now);
    if (now < this.nextAt || this.budget < 1) return false;
    this.budget -= 1;
    this.nextAt = now + fallbackProbeSpacingMs(this.rate, rng);
    return true;
  }

  /** ms until tryTake could succeed (Infinity at rate 0) */
  msUntilNext(now: number): number {
    if (this.rate === 0) return Number.POSITIVE_INFINITY;
    this.accrue(now);
    const budgetAt = this.budget >= 1 ? now : now + ((1 - this.budget) * 1000) / this.rate;
    return Math.max(0, Math.max(this.nextAt, budgetAt) - now);
  }

  private accrue(now: number): void {
    if (now > this.at)
      this.budget = Math.min(FALLBACK_BURST, this.budget + (this.rate * (now - this.at)) / 1000);
    this.at = Math.max(this.at, now);
  }
}
