// Time is injected everywhere so tests and the simulator run on virtual time and assert at
// T-1 ms / T+1 ms around every timer edge.

/** A monotonic millisecond clock. Values are only ever compared with values of the same clock. */
export interface Clock {
  now(): number;
}

interface MonotonicSource {
  now(): number;
}

// libs/core is compiled without DOM or Node typings: look performance up structurally.
const monotonic: MonotonicSource | undefined = (globalThis as { performance?: MonotonicSource }).performance;

const wallAtStart = Date.now();
const monoAtStart = monotonic ? monotonic.now() : 0;

/**
 * The process clock: anchored to the wall clock once at start, then advanced by the
 * monotonic source, so it never jumps backwards when NTP adjusts the wall clock.
 */
export const systemClock: Clock = {
  now: monotonic ? () => wallAtStart + (monotonic.now() - monoAtStart) : () => Date.now(),
};

/**
 * Wall time in whole milliseconds: the controller's clock. Its replicas compare times they store in
 * Postgres, so they need one shared (NTP) notion of now rather than each process's monotonic anchor.
 */
export const wallClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to: for tests and virtual-time simulation. */
export class FakeClock implements Clock {
  private current: number;

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    this.current += ms;
  }

  set(ms: number): void {
    if (ms < this.current)
      throw new RangeError(`FakeClock.set: time cannot go backwards (${ms} < ${this.current})`);
    this.current = ms;
  }
}
