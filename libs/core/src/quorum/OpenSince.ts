// When the controller first saw an instance locally open, for bad-node detection (Isolation.ts).
// The controller keeps its own first-seen time rather than trusting the instance's clock. The
// Postgres presence store applies the same rule in SQL (its equivalence test pins it to this one).
import { isLive } from './Quorum.js';

/**
 * The next openSince of an instance's verdict: kept while it stays locally open and its previous
 * heartbeat was still live; `now` when a new open run starts (first report, after a close, or after
 * it went silent past the TTL); null when it is not locally open.
 */
export function nextOpenSince(
  previous: { openSince: number | null; lastSeenAt: number } | undefined,
  locallyOpen: boolean,
  now: number,
  heartbeatTtlMs: number,
): number | null {
  if (!locallyOpen) return null;
  if (previous && previous.openSince !== null && isLive(previous, now, heartbeatTtlMs))
    return previous.openSince;
  return now;
}
