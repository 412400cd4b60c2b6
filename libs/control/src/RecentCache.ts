// What the control plane keeps for a short while per process: reads it may reuse (a breaker's live
// demand, a pool's contending groups, a prober ranking) and its view of breakers. One rule for all:
// an entry serves while younger than `maxAgeMs` by the controller's clock (never when the clock
// reads earlier than its time), a read that fails is not kept, and the whole cache is dropped
// when it reaches `maxEntries` (entries are cheap to read again).
export class RecentCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();

  constructor(
    private readonly maxAgeMs: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now: number): V | undefined {
    const hit = this.entries.get(key);
    return hit && now - hit.at < this.maxAgeMs() && now >= hit.at ? hit.value : undefined;
  }

  set(key: string, now: number, value: V): V {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { at: now, value });
    if (value instanceof Promise) value.catch(() => this.entries.delete(key));
    return value;
  }

  /** the entry's value, or `read()`'s (kept) when there is none fresh */
  through(key: string, now: number, read: () => V): V {
    return this.get(key, now) ?? this.set(key, now, read());
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
