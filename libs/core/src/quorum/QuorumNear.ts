// An early warning for operators: a CLOSED breaker whose locally open count is close to its quorum
// threshold. Announced when the breaker enters the band and when it leaves it.
import type { QuorumFiguresWire } from '../wire.js';

/** The band is the last 20 % of the threshold below it, at least one instance (the default). */
export const QUORUM_NEAR_FRACTION = 0.2;

/**
 * open < threshold and open ≥ threshold − max(1, ⌈fraction · threshold⌉), with at least one instance
 * open. `fraction` (default QUORUM_NEAR_FRACTION) is the operator's margin.
 */
export function quorumNear(q: QuorumFiguresWire, fraction: number = QUORUM_NEAR_FRACTION): boolean {
  const margin = Math.max(1, Math.ceil(fraction * q.threshold));
  return q.open >= 1 && q.open < q.threshold && q.open >= q.threshold - margin;
}
