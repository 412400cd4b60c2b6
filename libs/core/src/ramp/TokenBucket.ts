// The SDK's admission limiter during a ramp. tryTake() runs on every request, so it only does
// arithmetic on numeric fields: no allocation, no promise.
import type { Clock } from '../time/Clock.js';

// Refills accumulate in floating point (0.4/s over 2.5 s may sum to 0.9999999…); a token that is
// complete up to rounding counts as complete.
const WHOLE = 1 - 1e-9;

export class TokenBucket {
  private rate: number;
  private burst: number;
  private tokens: number;
  private refilledAt: number;

  /**
   * `ratePerSec` tokens per second, at most `burst` held; starts full, or with `initialTokens` (at
   * most the burst). A burst below 1 admits nothing.
   */
  constructor(
    ratePerSec: number,
    burst: number,
    private readonly clock: Clock,
    initialTokens?: number,
  ) {
    this.rate = Math.max(0, ratePerSec);
    this.burst = Math.max(0, burst);
    this.tokens =
      initialTokens === undefined || !Number.isFinite(initialTokens)
        ? this.burst
        : Math.min(this.burst, Math.max(0, initialTokens));
    this.refilledAt = clock.now();
  }

  tryTake(): boolean {
    this.refill();
    if (this.tokens >= WHOLE) {
      this.tokens = Math.max(0, this.tokens - 1);
      return true;
    }
    return false;
  }

  /** ms until tryTake() would succeed; 0 if it would now, Infinity if it never will at this rate. */
  msUntilNext(): number {
    this.refill();
    if (this.tokens >= WHOLE) return 0;
    if (this.rate <= 0 || this.burst < WHOLE) return Number.POSITIVE_INFINITY;
    return Math.ceil(((1 - this.tokens) * 1000) / this.rate);
  }

  /**
   * Applies a new allowance. Tokens already earned are kept (capped at the new burst) rather than
   * refilled, so a plan repeated every heartbeat never grants more than the rate.
   */
  reset(ratePerSec: number, burst: number): void {
    this.refill();
    this.rate = Math.max(0, ratePerSec);
    this.burst = Math.max(0, burst);
    if (this.tokens > this.burst) this.tokens = this.burst;
  }

  get ratePerSec(): number {
    return this.rate;
  }

  get capacity(): number {
    return this.burst;
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = now - this.refilledAt;
    if (elapsed > 0) {
      this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / 1000);
    }
    this.refilledAt = now;
  }
}
