// Where a call goes when its region's breaker is not CLOSED (issue 14): the plan's `shift` names
// the regions that may receive this instance's calls and at most how many requests/s each; one
// token bucket per receiver holds the instance to those rates, and core chooseRoute picks.
import { chooseRoute, roundTo, TokenBucket, type BreakerPlan, type Clock, type Rng } from '@recloser/core';

type Shift = NonNullable<BreakerPlan['shift']>;

/**
 * Routed rates are reported over this many heartbeat windows (sliding): the controller compares
 * their sum over a region's senders with what the plans allow (core isShiftThrottled), and a
 * single short window would show a call landing early as a burst.
 */
export const ROUTED_WINDOWS = 8;

export class ShiftRouter {
  /** the regions the latest shift lets receive, made once per plan (route() runs per call) */
  private receivers: readonly string[] = [];
  private readonly buckets = new Map<string, TokenBucket>();
  /** calls sent to each other region since the last take (for the caller's own accounting) */
  private readonly routed = new Map<string, number>();
  /** calls sent to each other region in the current heartbeat window */
  private window = new Map<string, number>();
  /** the last ROUTED_WINDOWS closed windows: their calls per region and length */
  private readonly closed: { calls: Map<string, number>; ms: number }[] = [];
  private readonly take = (region: string): boolean => this.buckets.get(region)?.tryTake() ?? false;

  constructor(
    private readonly clock: Clock,
    private readonly rng: Rng,
  ) {}

  /** The latest plan's shift (null or absent: nothing may move). */
  apply(shift: Shift | null): void {
    // every receiver has a bucket: none means nothing was receiving, and nothing is to undo
    if (shift === null && this.buckets.size === 0) return;
    const receivers = shift?.receivers ?? [];
    this.receivers = receivers.map((r) => r.region);
    for (const region of [...this.buckets.keys()])
      if (!this.receivers.includes(region)) this.buckets.delete(region);
    for (const r of receivers) {
      // one token at most: the moved rate never runs ahead of the plan (a rate below one a second
      // still earns a whole token now and then)
      const burst = 1;
      const bucket = this.buckets.get(r.region);
      if (bucket) bucket.reset(r.ratePerSec, burst);
      // a new receiver starts with a random part of one token, not a full bucket: a region's
      // instances get the same shift at about the same time, and a token each at once would move
      // one call per instance in one burst, whatever the region's rate; this way their first calls
      // spread over one token's time, i.e. arrive at the region's rate
      else this.buckets.set(r.region, new TokenBucket(r.ratePerSec, burst, this.clock, this.rng.next()));
    }
  }

  route(own: string | null, ownAdmits: boolean, regions: readonly string[]): string | null {
    const got = chooseRoute(own, ownAdmits, regions, this.receivers, this.take);
    if (got !== null && got !== own) {
      this.routed.set(got, (this.routed.get(got) ?? 0) + 1);
      this.window.set(got, (this.window.get(got) ?? 0) + 1);
    }
    return got;
  }

  /**
   * Closes the heartbeat window (`elapsedMs` long): requests/s moved to each other region over the
   * last ROUTED_WINDOWS windows (the heartbeat's `routed`), or undefined when none moved anything.
   */
  closeWindow(elapsedMs: number): Record<string, number> | undefined {
    this.closed.push({ calls: this.window, ms: Math.max(0, elapsedMs) });
    this.window = new Map();
    if (this.closed.length > ROUTED_WINDOWS) this.closed.shift();
    const calls = new Map<string, number>();
    let ms = 0;
    for (const w of this.closed) {
      ms += w.ms;
      for (const [region, n] of w.calls) calls.set(region, (calls.get(region) ?? 0) + n);
    }
    if (calls.size === 0) return undefined;
    const seconds = Math.max(ms, 1) / 1000;
    const out: Record<string, number> = {};
    for (const [region, n] of calls) out[region] = roundTo(n / seconds);
    return out;
  }

  /** calls moved to each other region so far */
  movedCalls(): Record<string, number> {
    return Object.fromEntries(this.routed);
  }
}
