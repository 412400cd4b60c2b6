import { describe, expect, it } from 'vitest';
import type { ReportedState } from '../wire.js';
import { findIsolated, type IsolationContext } from './Isolation.js';
import type { QuorumRow } from './Quorum.js';

const NOW = 500_000;
const AFTER = 60_000;

function row(
  instanceId: string,
  state: ReportedState,
  openSince: number | null,
  lastSeenAt = NOW,
): QuorumRow {
  return { instanceId, region: 'eu-west', state, lastSeenAt, openSince };
}

function ctx(overrides: Partial<IsolationContext> = {}): IsolationContext {
  return { now: NOW, heartbeatTtlMs: 3_000, isolationAfterMs: AFTER, groupState: 'closed', ...overrides };
}

describe('findIsolated', () => {
  it('flags an instance open for isolationAfterMs+1 ms but not at exactly the threshold or 1 ms before', () => {
    const rows = [
      row('over', 'open', NOW - AFTER - 1),
      row('at', 'open', NOW - AFTER),
      row('under', 'open', NOW - AFTER + 1),
    ];
    expect(findIsolated(rows, ctx())).toEqual([{ instanceId: 'over', openForMs: AFTER + 1 }]);
  });

  it('counts a self-probing (half_open) instance as still open', () => {
    expect(findIsolated([row('a', 'half_open', NOW - AFTER - 5)], ctx())).toEqual([
      { instanceId: 'a', openForMs: AFTER + 5 },
    ]);
  });

  it('flags nobody while the group is open, probing or ramping', () => {
    const rows = [row('a', 'open', 0)];
    for (const groupState of ['open', 'probing', 'ramping'] as const) {
      expect(findIsolated(rows, ctx({ groupState }))).toEqual([]);
    }
  });

  it('ignores closed, paused and dead instances', () => {
    const rows = [
      row('closed', 'closed', null),
      row('paused', 'paused', null),
      row('dead', 'open', 0, NOW - 3_000),
      row('alive', 'open', 0, NOW - 2_999),
    ];
    expect(findIsolated(rows, ctx()).map((r) => r.instanceId)).toEqual(['alive']);
  });

  it('counts only the time since the group closed, so a fresh recovery flags nobody', () => {
    const rows = [row('a', 'open', 0)];
    expect(findIsolated(rows, ctx({ groupClosedSince: NOW - AFTER }))).toEqual([]);
    expect(findIsolated(rows, ctx({ groupClosedSince: NOW - AFTER - 1 }))).toEqual([
      { instanceId: 'a', openForMs: AFTER + 1 },
    ]);
  });
});
