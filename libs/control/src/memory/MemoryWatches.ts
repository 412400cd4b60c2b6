import type { WatchStore } from '../ports.js';

/** What was last announced per (breaker, watch), in memory. */
export class MemoryWatches implements WatchStore {
  private readonly sets = new Map<string, Map<string, Set<string>>>();

  async swap(
    breakerId: string,
    watch: string,
    members: readonly string[],
  ): Promise<{ joined: string[]; left: string[] }> {
    let watches = this.sets.get(breakerId);
    const before = watches?.get(watch) ?? new Set<string>();
    const after = new Set(members);
    const joined = [...after].filter((m) => !before.has(m)).sort();
    const left = [...before].filter((m) => !after.has(m)).sort();
    if (after.size > 0) {
      if (!watches) this.sets.set(breakerId, (watches = new Map()));
      watches.set(watch, after);
    } else if (watches) {
      watches.delete(watch);
      if (watches.size === 0) this.sets.delete(breakerId);
    }
    return { joined, left };
  }

  async watched(): Promise<string[]> {
    return [...this.sets.keys()].sort();
  }
}
