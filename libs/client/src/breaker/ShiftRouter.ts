// Where a call goes when its region's breaker is not CLOSED (issue 14): the plan's `shift` names
// the regions that may receive this instance's calls and at most how many requests/s each; one
// token bucket per receiver holds the instance to those rates, and core chooseRoute picks.
import { chooseRoute, TokenBucket, type BreakerPlan, type Clock, type Rng } from '@recloser/core';

type Shift = NonNullable<BreakerPlan['shift']>;

export class ShiftRouter {
  /** the regions the latest shift lets receive, made once per plan (route() runs per call) */
  private receivers: readonly string[] = [];
  private readonly buckets = new Map<string, TokenBucket>();
  /** calls sent to each other region since the last take (for the caller's own accounting) */
  private readonly routed = new Map<string, number>();
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
      // a rate below one a second still earns a whole token now and then
      const burst = Math.max(1, r.ratePerSec);
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
    if (got !== null && got !== own) this.routed.set(got, (this.routed.get(got) ?? 0) + 1);
    return got;
  }

  /** calls moved to each other region so far */
  movedCalls(): Record<string, number> {
    return Object.fromEntries(this.routed);
  }
}
