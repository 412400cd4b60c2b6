// Bad-node detection: an instance that stays locally open while its group is healthy is most
// likely broken itself (bad host, config, local network). Operators want that alert.
import type { GlobalState } from '../wire.js';
import { isLive, isLocallyOpen, type QuorumRow } from './Quorum.js';

export interface IsolationContext {
  now: number;
  heartbeatTtlMs: number;
  isolationAfterMs: number;
  groupState: GlobalState;
  /**
   * when the group last became closed (controller clock); time open before that does not
   * count, so instances still open right after a recovery are not flagged at once
   */
  groupClosedSince?: number;
}

export interface IsolatedInstance {
  instanceId: string;
  openForMs: number;
}

/** Live instances locally open for longer than isolationAfterMs while the group is closed. */
export function findIsolated(rows: readonly QuorumRow[], ctx: IsolationContext): IsolatedInstance[] {
  if (ctx.groupState !== 'closed') return [];
  const result: IsolatedInstance[] = [];
  for (const row of rows) {
    if (row.openSince === null || !isLocallyOpen(row.state)) continue;
    if (!isLive(row, ctx.now, ctx.heartbeatTtlMs)) continue;
    const countFrom = Math.max(row.openSince, ctx.groupClosedSince ?? Number.NEGATIVE_INFINITY);
    const openForMs = ctx.now - countFrom;
    if (openForMs > ctx.isolationAfterMs) result.push({ instanceId: row.instanceId, openForMs });
  }
  result.sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
  return result;
}
