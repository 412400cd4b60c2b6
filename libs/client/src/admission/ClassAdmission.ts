// One traffic class's share of a ramp step on this instance: a token bucket for the rate and a
// counter for the concurrency. admit() runs on the hot path and does not allocate.
import { TokenBucket, type ClassAllowance, type Clock } from '@recloser/core';

export class ClassAdmission {
  /** allow() calls this tick (admitted or not): the demand reported to the controller */
  wanted = 0;
  inFlight = 0;
  private bucket: TokenBucket | null = null;
  private concurrency = 0;

  constructor(private readonly clock: Clock) {}

  /** true while the current plan grants this class anything */
  get admitted(): boolean {
    return this.bucket !== null;
  }

  /** Applies this class's allowance from a new plan; null = not admitted at this step. */
  apply(allowance: ClassAllowance | null): void {
    if (allowance === null) {
      this.bucket = null;
      this.concurrency = 0;
      return;
    }
    if (this.bucket === null)
      this.bucket = new TokenBucket(allowance.ratePerSec, allowance.burst, this.clock);
    else this.bucket.reset(allowance.ratePerSec, allowance.burst);
    this.concurrency = allowance.concurrency;
  }

  /** Could a call start now (without taking anything)? */
  canAdmit(): boolean {
    return this.bucket !== null && this.inFlight < this.concurrency && this.bucket.msUntilNext() === 0;
  }

  /** Takes a token and a concurrency slot, or nothing. */
  admit(): boolean {
    if (this.bucket === null || this.inFlight >= this.concurrency) return false;
    if (!this.bucket.tryTake()) return false;
    this.inFlight += 1;
    return true;
  }

  release(): void {
    if (this.inFlight > 0) this.inFlight -= 1;
  }

  /** ms until admit() could succeed on rate grounds; Infinity when not admitted */
  msUntilToken(): number {
    return this.bucket === null ? Number.POSITIVE_INFINITY : this.bucket.msUntilNext();
  }

  get concurrencyFull(): boolean {
    return this.inFlight >= this.concurrency;
  }
}
