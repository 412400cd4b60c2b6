// A fleet's leased work queue, as S6 models it (the queue the fleet owns, not Recloser's): a unit is
// claimed under a lease; an ack finishes it, a nack returns it with one more attempt, a lease that
// runs out returns it with one more reclaim; MaxRangeReclaims reclaims quarantine it as poison.
// Refunds from reconciliation take reclaims and attempts back, once per event (by event id).

export interface WorkUnit {
  id: string;
  poison: boolean;
  attempts: number;
  reclaims: number;
  state: 'ready' | 'leased' | 'done' | 'quarantined';
  holder: string | null;
  /** who held it last (after a reclaim: the instance that lost it) */
  lastHolder: string | null;
  leaseUntil: number;
  /** a new lease id per claim: an old holder's ack or nack after a reclaim is refused */
  lease: number;
}

export interface QueueEvent {
  eventId: string;
  workId: string;
  instanceId: string;
  kind: 'attempt' | 'reclaim';
  outcome?: 'overload' | 'network' | 'slow' | 'rate_limited' | 'client_error' | 'success';
  at: number;
}

export const MAX_RANGE_RECLAIMS = 5;

export class LeasedQueue {
  private readonly units = new Map<string, WorkUnit>();
  /**
   * ready units in lease order: like ranges of a log, a unit handed back (reclaimed or nacked) is
   * leased again before newer ones
   */
  private readonly ready: string[] = [];
  private readonly leased = new Set<string>();
  private seq = 0;
  /** events the fleet reports to the ledger, drained by the reporter */
  readonly outbox: QueueEvent[] = [];
  /** event ids whose refund was applied: a second refund of one is a double refund */
  private readonly refunded = new Set<string>();
  doubleRefunds = 0;
  refundedReclaims = 0;
  refundedAttempts = 0;
  totalReclaims = 0;
  readonly quarantined = { healthy: 0, poison: 0 };

  constructor(
    private readonly leaseMs: number,
    private readonly maxReclaims = MAX_RANGE_RECLAIMS,
  ) {}

  add(id: string, poison: boolean): void {
    this.units.set(id, {
      id,
      poison,
      attempts: 0,
      reclaims: 0,
      state: 'ready',
      holder: null,
      lastHolder: null,
      leaseUntil: 0,
      lease: 0,
    });
    this.ready.push(id);
  }

  /** The next visible unit, leased to `holder` until now + leaseMs; null when none is ready. */
  claim(holder: string, now: number): WorkUnit | null {
    const id = this.ready.shift();
    if (id === undefined) return null;
    const u = this.units.get(id)!;
    u.state = 'leased';
    u.holder = holder;
    u.lastHolder = holder;
    u.leaseUntil = now + this.leaseMs;
    u.lease += 1;
    this.leased.add(id);
    return u;
  }

  /** Whether `holder` still holds this lease of the unit. */
  holds(u: WorkUnit, holder: string, lease: number): boolean {
    return u.state === 'leased' && u.holder === holder && u.lease === lease;
  }

  ack(u: WorkUnit, holder: string, lease: number, now: number): void {
    if (!this.holds(u, holder, lease)) return;
    this.release(u);
    u.state = 'done';
    this.event(u, holder, 'attempt', now, 'success');
  }

  /** A failed attempt: the unit is visible again with one more attempt. */
  nack(u: WorkUnit, holder: string, lease: number, now: number, outcome: QueueEvent['outcome']): void {
    if (!this.holds(u, holder, lease)) return;
    this.release(u);
    u.attempts += 1;
    this.event(u, holder, 'attempt', now, outcome);
    this.makeReady(u);
  }

  /** Leases that ran out: each unit returns with one more reclaim, or goes to quarantine. */
  expire(now: number): WorkUnit[] {
    const out: WorkUnit[] = [];
    for (const id of [...this.leased]) {
      const u = this.units.get(id)!;
      if (u.leaseUntil > now) continue;
      const holder = u.holder!;
      this.release(u);
      u.reclaims += 1;
      this.totalReclaims += 1;
      this.event(u, holder, 'reclaim', u.leaseUntil);
      if (u.reclaims >= this.maxReclaims) {
        u.state = 'quarantined';
        this.quarantined[u.poison ? 'poison' : 'healthy'] += 1;
      } else this.makeReady(u);
      out.push(u);
    }
    return out;
  }

  /** A refund from reconciliation: applied once per event id; a second one is counted, not applied. */
  applyRefund(r: { eventId: string; workId: string; attempts: number; reclaims: number }): void {
    if (this.refunded.has(r.eventId)) {
      this.doubleRefunds += 1;
      return;
    }
    this.refunded.add(r.eventId);
    const u = this.units.get(r.workId);
    if (!u) return;
    u.reclaims = Math.max(0, u.reclaims - r.reclaims);
    u.attempts = Math.max(0, u.attempts - r.attempts);
    this.refundedReclaims += r.reclaims;
    this.refundedAttempts += r.attempts;
  }

  all(): WorkUnit[] {
    return [...this.units.values()];
  }

  backlog(): number {
    return this.ready.length;
  }

  private release(u: WorkUnit): void {
    this.leased.delete(u.id);
    u.holder = null;
  }

  private makeReady(u: WorkUnit): void {
    u.state = 'ready';
    this.ready.unshift(u.id);
  }

  private event(
    u: WorkUnit,
    instanceId: string,
    kind: QueueEvent['kind'],
    at: number,
    outcome?: QueueEvent['outcome'],
  ): void {
    this.seq += 1;
    this.outbox.push({
      eventId: `q${this.seq}`,
      workId: u.id,
      instanceId,
      kind,
      at,
      ...(outcome ? { outcome } : {}),
    });
  }
}
