// Heartbeat rows in memory. Per breaker, live rows are kept in order of their last heartbeat (a Map
// re-inserted on each heartbeat), so expiring the silent ones and counting the live and open ones
// costs O(1) per heartbeat rather than a scan of the fleet: a 5,000-instance simulation stays fast.
// It assumes the clock never goes back (one controller clock); given an older `now`, reads scan.
import { isLive, isLocallyOpen, nextOpenSince, positiveDemand, type BreakerVerdict } from '@recloser/core';
import type { StoredRun } from '../ledgerPorts.js';
import type { LiveCounts, LiveDemand, PresenceStore, VerdictRow } from '../ports.js';

const MAX_ENDED_RUNS = 64;

interface BreakerRows {
  /** rows whose last heartbeat may still be live, oldest heartbeat first */
  live: Map<string, VerdictRow>;
  /** rows known to be silent past the TTL */
  stale: Map<string, VerdictRow>;
  /** locally open rows in `live` */
  open: number;
}

export class MemoryPresence implements PresenceStore {
  private readonly byBreaker = new Map<string, BreakerRows>();
  /** the latest time written or expired at: a read before it scans instead */
  private latest = Number.NEGATIVE_INFINITY;
  /** instances and their region, as the controller's `instances` table */
  readonly instances = new Map<string, { group: string; region: string; lastSeenAt: number }>();
  private readonly perGroup = new Map<string, number>();
  /** ended local open runs per (breaker, instance), the latest MAX_ENDED_RUNS (reconciliation reads them) */
  readonly endedRuns = new Map<string, StoredRun[]>();

  constructor(
    private readonly heartbeatTtlMs: number,
    /** whether a breaker is CLOSED (the breaker store answers) */
    private readonly isClosed: (breakerId: string) => boolean,
  ) {}

  async record(
    heartbeat: { group: string; instanceId: string; region: string },
    verdicts: readonly { breakerId: string; verdict: BreakerVerdict }[],
    now: number,
  ): Promise<void> {
    this.latest = Math.max(this.latest, now);
    const key = `${heartbeat.group}\u0000${heartbeat.instanceId}`;
    if (!this.instances.has(key))
      this.perGroup.set(heartbeat.group, (this.perGroup.get(heartbeat.group) ?? 0) + 1);
    this.instances.set(key, {
      group: heartbeat.group,
      region: heartbeat.region,
      lastSeenAt: now,
    });
    for (const { breakerId, verdict } of verdicts) {
      const rows = this.rowsOf(breakerId);
      const previous = rows.live.get(heartbeat.instanceId) ?? rows.stale.get(heartbeat.instanceId);
      if (rows.live.delete(heartbeat.instanceId) && previous && isLocallyOpen(previous.state)) rows.open -= 1;
      rows.stale.delete(heartbeat.instanceId);
      const open = isLocallyOpen(verdict.state);
      const openSince = nextOpenSince(previous, open, now, this.heartbeatTtlMs);
      if (previous && previous.openSince !== null && openSince !== previous.openSince)
        this.endRun(breakerId, heartbeat.instanceId, { ...previous, openSince: previous.openSince }, now);
      rows.live.set(heartbeat.instanceId, {
        instanceId: heartbeat.instanceId,
        region: heartbeat.region,
        state: verdict.state,
        lastSeenAt: now,
        openSince,
        evidence: verdict.evidence,
        demand: positiveDemand(verdict.demand),
        reportedSince: verdict.since ?? null,
        ...(verdict.routed ? { routed: { ...verdict.routed } } : {}),
      });
      if (open) rows.open += 1;
    }
  }

  async groupInstances(group: string, instanceId: string): Promise<{ count: number; known: boolean }> {
    return { count: this.perGroup.get(group) ?? 0, known: this.instances.has(`${group}\u0000${instanceId}`) };
  }

  async rows(breakerId: string, since: number): Promise<VerdictRow[]> {
    const rows = this.byBreaker.get(breakerId);
    if (!rows) return [];
    const out: VerdictRow[] = [];
    for (const map of [rows.live, rows.stale])
      for (const r of map.values()) if (r.lastSeenAt > since) out.push(r);
    return out.sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
  }

  /** Live and open counts of one breaker at `now`. */
  counts(breakerId: string, now: number): LiveCounts {
    const rows = this.byBreaker.get(breakerId);
    if (!rows) return { live: 0, open: 0 };
    if (now < this.latest) {
      let live = 0;
      let open = 0;
      for (const map of [rows.live, rows.stale])
        for (const r of map.values())
          if (isLive(r, now, this.heartbeatTtlMs)) {
            live += 1;
            if (isLocallyOpen(r.state)) open += 1;
          }
      return { live, open };
    }
    // expiring moves rows for good: every later read must be at this time or after
    this.latest = now;
    this.expire(rows, now);
    return { live: rows.live.size, open: rows.open };
  }

  async isLive(breakerId: string, instanceId: string, now: number): Promise<boolean> {
    const rows = this.byBreaker.get(breakerId);
    const row = rows?.live.get(instanceId) ?? rows?.stale.get(instanceId);
    return row !== undefined && isLive(row, now, this.heartbeatTtlMs);
  }

  async liveDemand(breakerId: string, now: number): Promise<LiveDemand[]> {
    return (await this.rows(breakerId, now - this.heartbeatTtlMs)).map((r) => ({
      instanceId: r.instanceId,
      demand: r.demand,
    }));
  }

  async closedWithLiveTrouble(now: number): Promise<string[]> {
    const out: string[] = [];
    for (const id of this.byBreaker.keys())
      if (this.isClosed(id) && this.counts(id, now).open > 0) out.push(id);
    return out.sort();
  }

  /** Instances with a live heartbeat (any breaker), as the admin overview counts them. */
  liveInstances(now: number): number {
    let n = 0;
    for (const i of this.instances.values()) if (isLive(i, now, this.heartbeatTtlMs)) n += 1;
    return n;
  }

  /** The stored verdict row of one instance on one breaker, live or not. */
  row(breakerId: string, instanceId: string): VerdictRow | undefined {
    const rows = this.byBreaker.get(breakerId);
    return rows?.live.get(instanceId) ?? rows?.stale.get(instanceId);
  }

  /** As the controller's verdicts trigger does: the run that a close (or a lapse) ended. */
  private endRun(
    breakerId: string,
    instanceId: string,
    previous: { openSince: number; lastSeenAt: number },
    now: number,
  ): void {
    const key = `${breakerId}\u0000${instanceId}`;
    const runs = this.endedRuns.get(key) ?? [];
    runs.push({ openSince: previous.openSince, lastSeenAt: previous.lastSeenAt, nextSeenAt: now });
    if (runs.length > MAX_ENDED_RUNS) runs.shift();
    this.endedRuns.set(key, runs);
  }

  private rowsOf(breakerId: string): BreakerRows {
    let rows = this.byBreaker.get(breakerId);
    if (!rows) {
      rows = { live: new Map(), stale: new Map(), open: 0 };
      this.byBreaker.set(breakerId, rows);
    }
    return rows;
  }

  /** Moves rows silent past the TTL from the front of `live` to `stale`. */
  private expire(rows: BreakerRows, now: number): void {
    for (const [id, r] of rows.live) {
      if (isLive(r, now, this.heartbeatTtlMs)) break;
      rows.live.delete(id);
      rows.stale.set(id, r);
      if (isLocallyOpen(r.state)) rows.open -= 1;
    }
  }
}
