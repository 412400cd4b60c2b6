// Probe owners: the instances of each region that may probe while the controller is unreachable.
// Chosen by rendezvous (highest-random-weight) hashing over the region's live instances: each
// instance scores rendezvousHash(salt, instance) and the best `ownersPerRegion` own the region. An
// instance that comes or goes changes the owners only if it is (or would be) one of them, so
// owners do not churn with every heartbeat, and every replica picks the same owners unprompted.
import { rendezvousHash } from '../probe/Designation.js';

export interface LiveInstance {
  instanceId: string;
  region: string;
}

/** an instance's score for a salt (the breaker): lower ranks first */
export function ownerScore(salt: string, instanceId: string): number {
  return rendezvousHash(`${salt}\u0000${instanceId}`);
}

/**
 * Region → its owners (best first): the `ownersPerRegion` live instances of the region with the
 * lowest ownerScore (ties by id); every live instance of a region with fewer. Duplicates count once.
 */
export function chooseProbeOwners(
  live: readonly LiveInstance[],
  ownersPerRegion: number,
  salt: string,
): Map<string, string[]> {
  const count = Number.isFinite(ownersPerRegion) ? Math.max(0, Math.floor(ownersPerRegion)) : 0;
  const byRegion = new Map<string, Map<string, number>>();
  for (const { instanceId, region } of live) {
    let m = byRegion.get(region);
    if (!m) byRegion.set(region, (m = new Map()));
    if (!m.has(instanceId)) m.set(instanceId, ownerScore(salt, instanceId));
  }
  const out = new Map<string, string[]>();
  for (const [region, scores] of byRegion) {
    const ranked = [...scores.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, count)
      .map(([id]) => id);
    out.set(region, ranked);
  }
  return out;
}
