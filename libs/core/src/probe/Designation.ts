// Which instances the controller designates as probers. Probes are real work, so only live
// instances that want to call the dependency qualify; the choice is a hash of (epoch, instance),
// so every replica picks the same prober without coordinating, and a new epoch spreads the duty.

export interface ProberCandidate {
  instanceId: string;
  /** heartbeat row is fresh */
  live: boolean;
  /** requests/s it wants of this dependency (all classes); no demand → it has no call to probe with */
  demand: number;
  /** its probe failed or its lease expired unused in this epoch: let someone else try */
  excluded?: boolean;
}

/** designation's hash of (epoch, instance): rendezvousHash of `epoch:instanceId`. */
export function designationHash(epoch: number, instanceId: string): number {
  return rendezvousHash(`${epoch}:${instanceId}`);
}

/** FNV-1a over the string, then a murmur3 finaliser so nearby ids spread over the whole range. */
export function rendezvousHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Up to `count` eligible instance ids, ranked by designationHash (ties by id), best first. */
export function designateProbers(
  candidates: readonly ProberCandidate[],
  count: number,
  epoch: number,
): string[] {
  if (!(count > 0)) return [];
  const eligible = new Set<string>();
  for (const c of candidates) {
    if (c.live && !c.excluded && Number.isFinite(c.demand) && c.demand > 0) eligible.add(c.instanceId);
  }
  return [...eligible]
    .map((id) => ({ id, h: designationHash(epoch, id) }))
    .sort((a, b) => a.h - b.h || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, Math.floor(count))
    .map((x) => x.id);
}

/**
 * A designation computed once for a snapshot of the live fleet, to answer "is this instance
 * designated?" for each of its heartbeats without ranking the whole fleet again (which would cost
 * O(N log N) per heartbeat, O(N² log N) per interval).
 */
export interface ProberRanking {
  epoch: number;
  count: number;
  /** the snapshot's best `count` eligible instances, best first */
  top: readonly { id: string; h: number }[];
}

export function rankProbers(
  candidates: readonly ProberCandidate[],
  count: number,
  epoch: number,
): ProberRanking {
  const top = designateProbers(candidates, count, epoch).map((id) => ({ id, h: designationHash(epoch, id) }));
  return { epoch, count: Math.max(0, Math.floor(count)), top };
}

/**
 * Exactly `designateProbers(snapshot with instanceId's entry replaced by one that is eligible or
 * not).includes(instanceId)`: fewer than `count` of the others rank before it. Only the snapshot's
 * top can: any other eligible instance ranks after all of them.
 */
export function designatedIn(ranking: ProberRanking, instanceId: string, eligible: boolean): boolean {
  if (!eligible || ranking.count === 0) return false;
  const h = designationHash(ranking.epoch, instanceId);
  let before = 0;
  for (const t of ranking.top) {
    if (t.id !== instanceId && (t.h < h || (t.h === h && t.id < instanceId))) before += 1;
  }
  return before < ranking.count;
}
