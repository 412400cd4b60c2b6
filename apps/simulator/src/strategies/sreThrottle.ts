// `sre-throttle`: client-side adaptive throttling as Google's SRE book describes it ("Handling
// Overload", chapter 21). Each client task keeps, over the last two minutes, the requests its
// application attempted and the requests the backend accepted, and rejects a new request locally
// with probability max(0, (requests − K·accepts) / (requests + 1)), K = 2. A locally rejected request
// counts as a request (that is what makes the rejection rate grow while the backend refuses), never
// reaches the backend, and the unit waits in the instance's queue to be tried again. No breaker, no
// coordination between instances.
import { isSystemic, type Outcome, type Rng } from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

export interface SreThrottleOptions {
  /** the multiplier K: the backend may refuse up to (K − 1)/K of what it is sent before clients throttle */
  k: number;
  /** the window requests and accepts are counted over */
  windowMs: number;
  /** a unit rejected locally is tried again this long after (the queue's redelivery delay) */
  rejectRetryMs: number;
}

export const SRE_THROTTLE: SreThrottleOptions = { k: 2, windowMs: 120_000, rejectRetryMs: 1000 };

/** Whether the backend accepted a request: anything but overload, throttling and failures to answer. */
export function backendAccepted(outcome: Outcome): boolean {
  return outcome !== 'rate_limited' && !isSystemic(outcome);
}

/** Requests and accepts in one-second buckets over a sliding window. */
class Window {
  private readonly requests: number[];
  private readonly accepts: number[];
  private second = -1;
  requestSum = 0;
  acceptSum = 0;

  constructor(private readonly seconds: number) {
    this.requests = new Array<number>(seconds).fill(0);
    this.accepts = new Array<number>(seconds).fill(0);
  }

  advance(nowMs: number): void {
    const s = Math.floor(nowMs / 1000);
    if (this.second < 0) this.second = s;
    for (let k = this.second + 1; k <= s && k - this.second <= this.seconds; k++) {
      const i = k % this.seconds;
      this.requestSum -= this.requests[i]!;
      this.acceptSum -= this.accepts[i]!;
      this.requests[i] = 0;
      this.accepts[i] = 0;
    }
    if (s - this.second > this.seconds) {
      this.requests.fill(0);
      this.accepts.fill(0);
      this.requestSum = 0;
      this.acceptSum = 0;
    }
    this.second = Math.max(this.second, s);
  }

  request(): void {
    this.requests[this.second % this.seconds]! += 1;
    this.requestSum += 1;
  }

  accept(): void {
    this.accepts[this.second % this.seconds]! += 1;
    this.acceptSum += 1;
  }
}

/** The SRE book's client-side rejection probability. */
export function sreRejectProbability(requests: number, accepts: number, k: number): number {
  return Math.max(0, (requests - k * accepts) / (requests + 1));
}

export class SreThrottle implements CallGate {
  private readonly window: Window;
  private blockedUntil = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly rng: Rng,
    private readonly options: SreThrottleOptions,
  ) {
    this.window = new Window(Math.max(1, Math.round(options.windowMs / 1000)));
  }

  acquire(): GateKind | null {
    const now = this.sim.now();
    if (now < this.blockedUntil) return null;
    this.window.advance(now);
    this.window.request();
    const p = sreRejectProbability(this.window.requestSum, this.window.acceptSum, this.options.k);
    if (p > 0 && this.rng.next() < p) {
      this.blockedUntil = now + this.options.rejectRetryMs;
      return null;
    }
    return 'call';
  }

  complete(_kind: GateKind, outcome: Outcome): void {
    if (outcome === 'cancelled' || !backendAccepted(outcome)) return;
    this.window.advance(this.sim.now());
    this.window.accept();
  }

  wakeAt(): number | null {
    return this.blockedUntil > this.sim.now() ? this.blockedUntil : null;
  }

  isOpen(): boolean {
    return false;
  }

  /** The current local rejection probability (for tests). */
  rejectProbability(): number {
    this.window.advance(this.sim.now());
    return sreRejectProbability(this.window.requestSum, this.window.acceptSum, this.options.k);
  }
}

export const sreThrottle: Strategy = {
  name: 'sre-throttle',
  build(ctx: StrategyContext): Fleet {
    const gates = ctx.instances.map(() => new SreThrottle(ctx.sim, ctx.sim.rng, SRE_THROTTLE));
    return {
      gate: (i) => gates[i]!,
      attach: () => undefined,
      start: () => undefined,
      globalState: () => null,
    };
  },
};
