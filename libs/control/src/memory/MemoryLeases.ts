// Probe leases in memory, under core `decideProbeGrant` — the rule the controller's Redis Lua script
// transcribes. Same semantics as that store: a grant first sweeps its pool; an instance holding a
// live token of the current epoch gets it back; an expired lease excludes its holder for the epoch.
import { decideProbeGrant, PROBE_RATE_WINDOW_MS, type Clock } from '@recloser/core';
import type { LeaseInfo, LeaseOutcome, LeaseRequest, LeaseStore } from '../ports.js';

interface Lease extends LeaseInfo {
  group: string;
  grantedAt: number;
}

export class MemoryLeases implements LeaseStore {
  private readonly leases = new Map<string, Lease>();
  private readonly grantsByPool = new Map<string, number[]>();
  private readonly excludedBy = new Map<string, Set<string>>();
  private fencing = 0;

  constructor(private readonly clock: Clock) {}

  grant(req: LeaseRequest): Promise<LeaseOutcome> {
    return Promise.resolve(this.run(req, false));
  }

  held(req: LeaseRequest): Promise<LeaseOutcome> {
    return Promise.resolve(this.run(req, true));
  }

  async check(token: string): Promise<LeaseInfo | null> {
    return this.lookup(token, false);
  }

  async release(token: string): Promise<LeaseInfo | null> {
    return this.lookup(token, true);
  }

  async releaseBreaker(_pool: string, breakerId: string): Promise<number> {
    let n = 0;
    for (const [token, l] of this.leases) {
      if (l.breakerId !== breakerId) continue;
      this.leases.delete(token);
      n += 1;
    }
    return n;
  }

  async sweep(pool: string): Promise<number> {
    return this.sweepPool(pool, this.clock.now());
  }

  async pools(): Promise<string[]> {
    return [...this.grantsByPool.keys()].sort();
  }

  async excluded(breakerId: string, epoch: number): Promise<string[]> {
    return [...(this.excludedBy.get(`${breakerId}:${epoch}`) ?? [])].sort();
  }

  /** Live leases of a pool now (the budget invariant: never more than its concurrency). */
  live(pool?: string): number {
    const now = this.clock.now();
    let n = 0;
    for (const l of this.leases.values())
      if (l.expiresAt > now && (pool === undefined || l.pool === pool)) n += 1;
    return n;
  }

  private run(req: LeaseRequest, onlyRedeliver: boolean): LeaseOutcome {
    const now = this.clock.now();
    this.sweepPool(req.pool, now);
    const held = [...this.leases.values()].find(
      (l) => l.breakerId === req.breakerId && l.instanceId === req.instanceId && l.expiresAt > now,
    );
    // a token of an older epoch still counts against the budget, but is not handed back
    if (held && held.epoch === req.epoch) {
      return {
        kind: 'held',
        token: held.token,
        fencing: held.fencing,
        expiresAt: held.expiresAt,
        validForMs: held.expiresAt - now,
      };
    }
    if (onlyRedeliver) return { kind: 'none' };
    const live = [...this.leases.values()].filter((l) => l.pool === req.pool);
    const recent = (this.grantsByPool.get(req.pool) ?? []).filter((t) => t > now - PROBE_RATE_WINDOW_MS);
    this.grantsByPool.set(req.pool, recent);
    const nextExpiry = live.reduce((m, l) => Math.min(m, l.expiresAt), Number.POSITIVE_INFINITY);
    const ours = live.filter((l) => l.group === req.group).map((l) => l.expiresAt);
    const decision = decideProbeGrant({
      now,
      liveLeases: live.length,
      ...(Number.isFinite(nextExpiry) ? { nextLeaseExpiryAt: nextExpiry } : {}),
      budget: req.budget,
      recentGrantTimes: recent,
      blockedUntil: 0,
      ...(req.fairShareCap !== undefined
        ? { fairShare: { cap: req.fairShareCap, groupLeaseExpiries: ours } }
        : {}),
    });
    if (!decision.grant)
      return { kind: 'refused', reason: decision.reason, retryAfterMs: decision.retryAfterMs };
    this.fencing += 1;
    const lease: Lease = {
      token: `probe-${this.fencing}`,
      pool: req.pool,
      breakerId: req.breakerId,
      group: req.group,
      instanceId: req.instanceId,
      fencing: this.fencing,
      epoch: req.epoch,
      expiresAt: now + req.budget.leaseTtlMs,
      validForMs: req.budget.leaseTtlMs,
      grantedAt: now,
    };
    this.leases.set(lease.token, lease);
    recent.push(now);
    return {
      kind: 'granted',
      token: lease.token,
      fencing: lease.fencing,
      expiresAt: lease.expiresAt,
      validForMs: lease.validForMs,
    };
  }

  private sweepPool(pool: string, now: number): number {
    let n = 0;
    for (const [token, l] of this.leases) {
      if (l.pool !== pool || l.expiresAt > now) continue;
      this.leases.delete(token);
      const key = `${l.breakerId}:${l.epoch}`;
      let set = this.excludedBy.get(key);
      if (!set) this.excludedBy.set(key, (set = new Set()));
      set.add(l.instanceId);
      n += 1;
    }
    return n;
  }

  private lookup(token: string, release: boolean): LeaseInfo | null {
    const l = this.leases.get(token);
    if (!l) return null;
    const now = this.clock.now();
    if (l.expiresAt <= now) {
      this.leases.delete(token);
      return null;
    }
    if (release) this.leases.delete(token);
    const { grantedAt: _grantedAt, ...info } = l;
    return { ...info, validForMs: l.expiresAt - now };
  }
}
