// The discrete-event loop on virtual time. The clock is core's FakeClock, so every core and SDK
// object handed `sim.clock` sees exactly the simulated time. Work that returns promises (the SDK's
// tick over an in-memory transport) is awaited before time moves on, so async code stays causal.
import { FakeClock, seededRng, type Rng } from '@recloser/core';
import { EventQueue, type SimEvent } from './EventQueue.js';

export class Simulation {
  readonly clock: FakeClock;
  readonly rng: Rng;
  private readonly queue = new EventQueue();
  private pending = 0;
  private failure: unknown = null;

  constructor(seed: number, startMs = 0) {
    this.clock = new FakeClock(startMs);
    this.rng = seededRng(seed);
  }

  now(): number {
    return this.clock.now();
  }

  /** Runs fn at virtual time `at` (never in the past). */
  at(at: number, fn: SimEvent): void {
    this.queue.push(Math.max(at, this.clock.now()), fn);
  }

  after(delayMs: number, fn: SimEvent): void {
    this.at(this.clock.now() + Math.max(0, delayMs), fn);
  }

  /** Runs fn every periodMs from `first` until `until` (exclusive). */
  every(periodMs: number, first: number, until: number, fn: SimEvent): void {
    const fire = (t: number): void => {
      if (t >= until) return;
      this.at(t, () => {
        fn();
        fire(t + periodMs);
      });
    };
    fire(first);
  }

  /** Registers a promise started by an event: virtual time does not advance until it settles. */
  track(p: Promise<unknown>): void {
    this.pending += 1;
    p.then(
      () => {
        this.pending -= 1;
      },
      (err: unknown) => {
        this.pending -= 1;
        this.failure ??= err;
      },
    );
  }

  /**
   * Runs events up to `untilMs` (exclusive). `onProgress` is called with the fraction done about
   * once per simulated second.
   */
  async run(untilMs: number, onProgress?: (fraction: number) => void): Promise<void> {
    const start = this.clock.now();
    let nextReport = start;
    while (this.queue.size > 0) {
      const t = this.queue.peekTime();
      if (t >= untilMs) break;
      this.clock.set(t);
      // every event at this millisecond, then the promises they started, then the next millisecond
      while (this.queue.size > 0 && this.queue.peekTime() === t) this.queue.pop()!();
      // in-memory promises settle within a few microtask turns; a macrotask turn only if they did not
      for (let turns = 0; this.pending > 0 && turns < 64; turns++) await null;
      for (let spins = 0; this.pending > 0; spins++) {
        if (spins > 1000)
          throw new Error(`simulation stalled at t=${t}: ${this.pending} promises never settled`);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (this.failure !== null) throw this.failure;
      if (onProgress && t >= nextReport) {
        onProgress((t - start) / (untilMs - start));
        nextReport = t + 1000;
      }
    }
    if (untilMs > this.clock.now()) this.clock.set(untilMs);
  }
}
