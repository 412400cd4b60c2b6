// `aws-adaptive`: the AWS SDKs' retry behaviour in `adaptive` mode, as their retry-behaviour
// reference describes it (Smithy/SDK "standard" retry strategy plus the client-side rate limiter):
// - standard retries: at most 3 attempts; a retry waits random(0, 1) × min(2^attempt s, 20 s); a
//   retry quota of 500 tokens per client, a retry costs 5 (10 after a timeout), a successful retry
//   gives its cost back, a success on the first attempt adds 1; without enough tokens, no retry;
// - adaptive: a token bucket in front of every attempt, off until the first throttling error, whose
//   rate follows CUBIC: on a throttling error the rate drops to β = 0.7 × the measured send rate and
//   that becomes the last maximum; after successes it grows along C·(t − K)³ + last maximum
//   (C = 0.4, K = ∛(last max·(1 − β)/C)), never above twice the measured send rate (smoothed 0.8,
//   measured in half-second buckets), never below 0.5/s.
// Throttling errors here are 429 and 503 (the provider's "slow down"); timeouts and other failures
// are transient: retried, not throttling. One client per instance, no coordination between them.
import type { Outcome, Rng } from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

export const AWS_RETRY = {
  quota: 500,
  retryCost: 5,
  timeoutRetryCost: 10,
  noRetryIncrement: 1,
  maxBackoffMs: 20_000,
} as const;

export const AWS_CUBIC = {
  beta: 0.7,
  scaleConstant: 0.4,
  smooth: 0.8,
  minFillRate: 0.5,
  minCapacity: 1,
} as const;

const isThrottle = (o: Outcome): boolean => o === 'rate_limited' || o === 'overload';
const isTimeout = (o: Outcome): boolean => o === 'network' || o === 'slow';

/** The adaptive client rate limiter (CUBIC over a token bucket), on the simulated clock in seconds. */
export class CubicRateLimiter {
  private enabled = false;
  private fillRate = 0;
  private maxCapacity = 0;
  private capacity = 0;
  private lastTimestamp: number | null = null;
  private measuredTxRate = 0;
  private lastTxRateBucket: number;
  private requestCount = 0;
  private lastMaxRate = 0;
  private lastThrottleTime: number;
  private timeWindow = 0;

  constructor(private readonly nowSec: () => number) {
    this.lastTxRateBucket = Math.floor(nowSec());
    this.lastThrottleTime = nowSec();
  }

  /** Takes a token; returns the seconds to wait when there is none (0 = go). */
  acquire(): number {
    if (!this.enabled) return 0;
    this.refill();
    if (this.capacity >= 1) {
      this.capacity -= 1;
      return 0;
    }
    return (1 - this.capacity) / this.fillRate;
  }

  rate(): number | null {
    return this.enabled ? this.fillRate : null;
  }

  /** After every response. */
  update(throttled: boolean): void {
    this.updateMeasuredRate();
    const now = this.nowSec();
    let calculated: number;
    if (throttled) {
      const rateToUse = this.enabled ? Math.min(this.measuredTxRate, this.fillRate) : this.measuredTxRate;
      this.lastMaxRate = rateToUse;
      this.calculateTimeWindow();
      this.lastThrottleTime = now;
      calculated = rateToUse * AWS_CUBIC.beta;
      this.enabled = true;
    } else {
      this.calculateTimeWindow();
      const t = now - this.lastThrottleTime - this.timeWindow;
      calculated = AWS_CUBIC.scaleConstant * t ** 3 + this.lastMaxRate;
    }
    this.updateRate(Math.min(calculated, 2 * this.measuredTxRate));
  }

  private calculateTimeWindow(): void {
    this.timeWindow = Math.cbrt((this.lastMaxRate * (1 - AWS_CUBIC.beta)) / AWS_CUBIC.scaleConstant);
  }

  private refill(): void {
    const now = this.nowSec();
    if (this.lastTimestamp === null) {
      this.lastTimestamp = now;
      return;
    }
    this.capacity = Math.min(this.maxCapacity, this.capacity + (now - this.lastTimestamp) * this.fillRate);
    this.lastTimestamp = now;
  }

  private updateRate(newRps: number): void {
    this.refill();
    this.fillRate = Math.max(newRps, AWS_CUBIC.minFillRate);
    this.maxCapacity = Math.max(newRps, AWS_CUBIC.minCapacity);
    this.capacity = Math.min(this.capacity, this.maxCapacity);
  }

  private updateMeasuredRate(): void {
    const t = this.nowSec();
    const bucket = Math.floor(t * 2) / 2;
    this.requestCount += 1;
    if (bucket > this.lastTxRateBucket) {
      const current = this.requestCount / (bucket - this.lastTxRateBucket);
      this.measuredTxRate = current * AWS_CUBIC.smooth + this.measuredTxRate * (1 - AWS_CUBIC.smooth);
      this.requestCount = 0;
      this.lastTxRateBucket = bucket;
    }
  }
}

export class AwsAdaptiveClient implements CallGate {
  private quota: number = AWS_RETRY.quota;
  private readonly limiter: CubicRateLimiter;
  private waitUntil = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly rng: Rng,
  ) {
    this.limiter = new CubicRateLimiter(() => sim.now() / 1000);
  }

  acquire(): GateKind | null {
    const now = this.sim.now();
    if (now < this.waitUntil) return null;
    const waitSec = this.limiter.acquire();
    if (waitSec > 0) {
      this.waitUntil = now + Math.max(1, waitSec * 1000);
      return null;
    }
    return 'call';
  }

  complete(
    _kind: GateKind,
    outcome: Outcome,
    _latencyMs: number,
    _retryAfterMs: number | undefined,
    attemptNo = 0,
  ): void {
    if (outcome === 'cancelled') return;
    this.limiter.update(isThrottle(outcome));
    if (outcome === 'success') {
      // a successful retry gives back what it cost; a first-try success adds a token
      const refund = attemptNo > 0 ? AWS_RETRY.retryCost : AWS_RETRY.noRetryIncrement;
      this.quota = Math.min(AWS_RETRY.quota, this.quota + refund);
    }
  }

  retry(attemptNo: number, outcome: Outcome): { delayMs: number } | null {
    const cost = isTimeout(outcome) ? AWS_RETRY.timeoutRetryCost : AWS_RETRY.retryCost;
    if (this.quota < cost) return null;
    this.quota -= cost;
    const ceiling = Math.min(AWS_RETRY.maxBackoffMs, 1000 * 2 ** attemptNo);
    return { delayMs: this.rng.next() * ceiling };
  }

  wakeAt(): number | null {
    return this.waitUntil > this.sim.now() ? this.waitUntil : null;
  }

  isOpen(): boolean {
    return false;
  }

  retryQuota(): number {
    return this.quota;
  }

  sendRate(): number | null {
    return this.limiter.rate();
  }
}

export const awsAdaptive: Strategy = {
  name: 'aws-adaptive',
  build(ctx: StrategyContext): Fleet {
    const gates = ctx.instances.map(() => new AwsAdaptiveClient(ctx.sim, ctx.sim.rng));
    return {
      gate: (i) => gates[i]!,
      attach: () => undefined,
      start: () => undefined,
      globalState: () => null,
    };
  },
};
