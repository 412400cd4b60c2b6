// One traffic class's share of a ramp step on this instance: a token bucket for the rate and a
// counter for the concurrency. admit() runs on the hot path and does not allocate.
import { TokenBucket, type ClassAllowance, type Clock } from '@recloser/core';

/**
 * Demand is reported as a rate over at least this much recent time, however short the heartbeat
 * interval: an instance calling every 500 ms must not report 0 and 4 calls/s in alternate 250 ms
 * ticks, or the controller admits and drops it at every other heartbeat.
 */
export const DEMAND_WINDOW_MS = 1000;
const DEMAND_TICKS = 16;

export class ClassAdmission {
  /** allow() calls this tick (admitted or not): the demand reported to the controller */
  wanted = 0;
  inFlight = 0;
  /** ramps ended so far (forgetCalls): which ramp a call in flight belongs to */
  ramp = 0;
  private bucket: TokenBucket | null = null;
  private admittedNow = false;
  private concurrency = 0;
  // the last ticks' wanted counts and lengths, a ring (closeDemand only, once per tick)
  private readonly tickWanted = new Float64Array(DEMAND_TICKS);
  private readonly tickMs = new Float64Array(DEMAND_TICKS);
  private tickNext = 0;

  constructor(private readonly clock: Clock) {}

  /** the rate of the allowance held (0 when not admitted) */
  get ratePerSec(): number {
    return this.admittedNow && this.bucket !== null ? this.bucket.ratePerSec : 0;
  }

  /** true while the current plan grants this class anything */
  get admitted(): boolean {
    return this.admittedNow;
  }

  /**
   * Applies this class's allowance from a new plan; null = not admitted at this step. The bucket
   * outlives a spell without admission, frozen (no tokens accrue meanwhile): an instance dropped
   * and admitted again — rotation, a new step — carries what it had left instead of a fresh burst,
   * so churn in who is admitted never adds bursts on top of the step's rate.
   */
  apply(allowance: ClassAllowance | null): void {
    if (allowance === null) {
      if (this.bucket !== null && this.admittedNow) this.bucket.reset(0, this.bucket.capacity);
      this.admittedNow = false;
      this.concurrency = 0;
      return;
    }
    if (this.bucket === null)
      this.bucket = new TokenBucket(allowance.ratePerSec, allowance.burst, this.clock);
    else this.bucket.reset(allowance.ratePerSec, allowance.burst);
    this.admittedNow = true;
    this.concurrency = allowance.concurrency;
  }

  /**
   * Closes this tick's count of wanted calls: calls wanted per second over the newest ticks that
   * cover DEMAND_WINDOW_MS (all kept ticks if they cover less).
   */
  closeDemand(elapsedMs: number): number {
    this.tickWanted[this.tickNext] = this.wanted;
    this.tickMs[this.tickNext] = Math.max(elapsedMs, 1);
    this.tickNext = (this.tickNext + 1) % DEMAND_TICKS;
    this.wanted = 0;
    let wanted = 0;
    let ms = 0;
    for (let k = 1; k <= DEMAND_TICKS && ms < DEMAND_WINDOW_MS; k++) {
      const i = (this.tickNext - k + DEMAND_TICKS) % DEMAND_TICKS;
      if (this.tickMs[i] === 0) break;
      wanted += this.tickWanted[i]!;
      ms += this.tickMs[i]!;
    }
    return ms > 0 ? (wanted * 1000) / ms : 0;
  }

  /** Could a call start now (without taking anything)? */
  canAdmit(): boolean {
    return (
      this.admittedNow &&
      this.bucket !== null &&
      this.inFlight < this.concurrency &&
      this.bucket.msUntilNext() === 0
    );
  }

  /** Takes a token and a concurrency slot, or nothing. */
  admit(): boolean {
    if (!this.admittedNow || this.bucket === null || this.inFlight >= this.concurrency) return false;
    if (!this.bucket.tryTake()) return false;
    this.inFlight += 1;
    return true;
  }

  /**
   * A call this class admitted has settled. `ramp`: the `ramp` count when it was admitted (execute()
   * knows it): a call of a ramp that has ended was already forgotten and frees nothing of this one.
   */
  release(ramp = this.ramp): void {
    if (ramp === this.ramp && this.inFlight > 0) this.inFlight -= 1;
  }

  /**
   * The ramp that admitted the calls in flight has ended (the group left RAMPING). allow()/record()
   * callers name no admission, so a call admitted by the ramp and recorded after it ended cannot
   * release its slot; it must not hold one in the next ramp, or every instance busy at the moment
   * a ramp ended (closed, or a re-trip) is left unable to send in every later ramp.
   */
  forgetCalls(): void {
    this.inFlight = 0;
    this.ramp += 1;
  }

  /** ms until admit() could succeed on rate grounds; Infinity when not admitted */
  msUntilToken(): number {
    return !this.admittedNow || this.bucket === null ? Number.POSITIVE_INFINITY : this.bucket.msUntilNext();
  }

  get concurrencyFull(): boolean {
    return this.inFlight >= this.concurrency;
  }
}
