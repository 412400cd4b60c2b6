// While the controller is unreachable, a region's probe owners probe at the region's share of the
// probe rate. Each owner spaces its probes randomly around the mean so owners that lost the
// controller at the same moment do not probe in step.
import type { Rng } from '../random/Rng.js';

/**
 * ms until a fallback probe owner may probe again: uniform in [0.5, 1.5) × 1000 / ratePerSec
 * (mean one interval of the region's share). A rate that is not positive and finite never probes (Infinity).
 */
export function fallbackProbeSpacingMs(ratePerSec: number, rng: Rng): number {
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) return Number.POSITIVE_INFINITY;
  return (1000 / ratePerSec) * (0.5 + rng.next());
}
