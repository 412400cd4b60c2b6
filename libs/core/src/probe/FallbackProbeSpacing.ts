// While the controller is unreachable, fallback probes (a region's probe owners, and isolated
// instances joining late) are a Poisson process: exponential gaps around the mean, so instances
// that lost the controller at the same moment never probe in step.
import type { Rng } from '../random/Rng.js';

/**
 * ms until the next fallback probe of a Poisson process at `ratePerSec`: −ln(1 − u) × 1000 / rate
 * (mean one interval). A rate that is not positive and finite never probes (Infinity).
 */
export function fallbackProbeSpacingMs(ratePerSec: number, rng: Rng): number {
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) return Number.POSITIVE_INFINITY;
  return (Math.log(1 / (1 - rng.next())) * 1000) / ratePerSec;
}
