// A breaker's history in memory: global changes from the breakers' transition log, local open runs
// from the presence rows (the ended runs MemoryPresence keeps, and the current row).
import type { GlobalState } from '@recloser/core';
import type { BreakerHistory, StoredRun } from '../ledgerPorts.js';
import type { MemoryBreakers } from './MemoryBreakers.js';
import type { MemoryPresence } from './MemoryPresence.js';

export class MemoryHistory implements BreakerHistory {
  constructor(
    private readonly breakers: MemoryBreakers,
    private readonly presence: MemoryPresence,
  ) {}

  async timeline(breakerId: string, from: number, to: number) {
    const log = this.breakers.log.filter((t) => t.breakerId === breakerId);
    let initial: GlobalState = log[0]?.from ?? this.breakers.peek(breakerId)?.globalState.state ?? 'closed';
    const changes: { at: number; to: GlobalState }[] = [];
    for (const t of log) {
      if (t.at <= from) initial = t.to;
      else if (t.at <= to) changes.push({ at: t.at, to: t.to });
    }
    return { initial, changes };
  }

  async localRuns(breakerId: string, instanceId: string, from: number, to: number) {
    const ended: StoredRun[] = (this.presence.endedRuns.get(`${breakerId}\u0000${instanceId}`) ?? []).filter(
      (r) => r.openSince <= to && (r.nextSeenAt ?? Number.POSITIVE_INFINITY) >= from,
    );
    const row = this.presence.row(breakerId, instanceId);
    return { ended, current: row ? { openSince: row.openSince, lastSeenAt: row.lastSeenAt } : null };
  }
}
