// Heartbeat writes of one replica, coalesced and written as one multi-row statement: routine
// heartbeats (nothing that could change a decision) wait up to WRITE_BEHIND_MS in the buffer, the
// others start a flush at once (and heartbeats arriving while one runs go together in the next: a
// group commit). Rows of the same (breaker, instance) coalesce to the newest; its openSince follows
// core nextOpenSince across the coalesced reports, so the stored row is the one the sequence of
// single writes would have left (test/control/presence-sql-equivalence pins that).
import { isLocallyOpen, nextOpenSince, type BreakerVerdict } from '@recloser/core';

/** How long a routine heartbeat may wait in the buffer: what a replica crash may lose at most. */
export const WRITE_BEHIND_MS = 50;
/** rows per statement: a bigger batch is written in several, in one order (no deadlock across replicas) */
export const FLUSH_CHUNK_ROWS = 1000;

export interface VerdictWrite {
  breakerId: string;
  instanceId: string;
  region: string;
  verdict: BreakerVerdict;
  /** when the controller received it */
  at: number;
  /**
   * The row's openSince: null when not locally open; else the start of the open run as far as the
   * buffer saw it, and whether the stored row's own open run may continue it (`inherit`: no
   * coalesced report closed or lapsed the run since then).
   */
  openAt: number | null;
  inherit: boolean;
}

export interface PresenceWrite {
  group: string;
  instanceId: string;
  region: string;
  at: number;
}

/** One flush's worth of rows, deduplicated. */
export class PresenceBatch {
  readonly verdicts = new Map<string, VerdictWrite>();
  readonly presence = new Map<string, PresenceWrite>();
  urgent = false;
  private settle: { resolve: () => void; reject: (err: unknown) => void } | null = null;
  /** resolves when every row of this batch is written */
  readonly written = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));

  constructor(private readonly heartbeatTtlMs: number) {
    this.written.catch(() => undefined); // callers that wait see the error; routine ones do not wait
  }

  get size(): number {
    return this.verdicts.size + this.presence.size;
  }

  add(
    heartbeat: { group: string; instanceId: string; region: string },
    verdicts: readonly { breakerId: string; verdict: BreakerVerdict }[],
    at: number,
  ): void {
    const { group, instanceId, region } = heartbeat;
    const pKey = `${group}\u0000${instanceId}`;
    const seen = this.presence.get(pKey);
    // never backwards: a report received earlier than the buffered one does not replace it
    if (!seen || seen.at <= at) this.presence.set(pKey, { group, instanceId, region, at });
    for (const { breakerId, verdict } of verdicts) {
      const key = `${breakerId}\u0000${instanceId}`;
      const before = this.verdicts.get(key);
      if (before && before.at > at) continue;
      this.verdicts.set(
        key,
        coalesce(before, { breakerId, instanceId, region, verdict, at }, this.heartbeatTtlMs),
      );
    }
  }

  resolve(): void {
    this.settle?.resolve();
  }

  reject(err: unknown): void {
    this.settle?.reject(err);
  }
}

/**
 * The buffered row after `next` lands on `before` (or on nothing buffered): core nextOpenSince with
 * the buffered row as the previous report. Kept run → the buffered start and its `inherit`; a new
 * run → starts at `next.at` and does not inherit the stored row's run.
 */
export function coalesce(
  before: VerdictWrite | undefined,
  next: Omit<VerdictWrite, 'openAt' | 'inherit'>,
  heartbeatTtlMs: number,
): VerdictWrite {
  const open = isLocallyOpen(next.verdict.state);
  if (!before) return { ...next, openAt: open ? next.at : null, inherit: true };
  const openAt = nextOpenSince(
    { openSince: before.openAt, lastSeenAt: before.at },
    open,
    next.at,
    heartbeatTtlMs,
  );
  const kept = openAt !== null && openAt === before.openAt && before.openAt !== null;
  return { ...next, openAt, inherit: kept ? before.inherit : false };
}
