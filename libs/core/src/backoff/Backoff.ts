// Exponential backoff with jitter, so a fleet that failed together does not retry together.
import type { Rng } from '../random/Rng.js';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  multiplier: number;
  /** 0..1: the fraction of the delay that is randomised (0 = deterministic, 1 = "full jitter") */
  jitter: number;
}

/** delay = min(maxMs, baseMs·multiplier^attempt), then drawn uniformly from [delay·(1−jitter), delay]. */
export function backoffDelayMs(attempt: number, opts: BackoffOptions, rng: Rng): number {
  const exponent = Math.max(0, Math.floor(attempt));
  // multiplier^exponent overflows to Infinity for large attempts; min() caps it at maxMs
  const ceiling = Math.min(opts.maxMs, opts.baseMs * Math.pow(opts.multiplier, exponent));
  const jitter = Math.min(1, Math.max(0, opts.jitter));
  return ceiling - ceiling * jitter * rng.next();
}
