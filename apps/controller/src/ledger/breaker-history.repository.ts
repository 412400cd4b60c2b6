// A breaker's history on Postgres for reconciliation: global changes from the transition log, an
// instance's ended local open runs (copied by the verdicts trigger of migration Ledger) and its
// current verdict row.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BreakerHistory, StoredRun } from '@recloser/control';
import type { GlobalState, GlobalTimeline } from '@recloser/core';
import { DataSource } from 'typeorm';

@Injectable()
export class BreakerHistoryRepository implements BreakerHistory {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async timeline(breakerId: string, from: number, to: number): Promise<GlobalTimeline> {
    const [before] = (await this.db.query(
      `SELECT to_state FROM transitions WHERE breaker_id = $1 AND at <= $2 ORDER BY seq DESC LIMIT 1`,
      [breakerId, new Date(from)],
    )) as { to_state: GlobalState }[];
    const changes = (
      (await this.db.query(
        `SELECT at, from_state, to_state FROM transitions WHERE breaker_id = $1 AND at > $2 AND at <= $3 ORDER BY seq`,
        [breakerId, new Date(from), new Date(to)],
      )) as { at: Date; from_state: GlobalState; to_state: GlobalState }[]
    ).map((r) => ({ at: r.at.getTime(), to: r.to_state, from: r.from_state }));
    // no change at or before `from`: the state before the first change (a breaker starts CLOSED)
    const initial: GlobalState = before?.to_state ?? changes[0]?.from ?? (await this.stateNow(breakerId));
    return { initial, changes: changes.map(({ at, to: state }) => ({ at, to: state })) };
  }

  private async stateNow(breakerId: string): Promise<GlobalState> {
    const [row] = (await this.db.query(`SELECT state FROM breakers WHERE id = $1`, [breakerId])) as {
      state: GlobalState;
    }[];
    return row?.state ?? 'closed';
  }

  async localRuns(breakerId: string, instanceId: string, from: number, to: number) {
    const ended = (
      (await this.db.query(
        `SELECT open_since, last_seen_at, next_seen_at FROM local_open_runs
         WHERE breaker_id = $1 AND instance_id = $2 AND open_since <= $4
           AND (next_seen_at IS NULL OR next_seen_at >= $3)
         ORDER BY open_since LIMIT 1000`,
        [breakerId, instanceId, new Date(from), new Date(to)],
      )) as { open_since: Date; last_seen_at: Date; next_seen_at: Date | null }[]
    ).map((r): StoredRun => ({
      openSince: r.open_since.getTime(),
      lastSeenAt: r.last_seen_at.getTime(),
      nextSeenAt: r.next_seen_at ? r.next_seen_at.getTime() : null,
    }));
    const [row] = (await this.db.query(
      `SELECT open_since, reported_at FROM verdicts WHERE breaker_id = $1 AND instance_id = $2`,
      [breakerId, instanceId],
    )) as { open_since: Date | null; reported_at: Date }[];
    const current = row
      ? { openSince: row.open_since ? row.open_since.getTime() : null, lastSeenAt: row.reported_at.getTime() }
      : null;
    return { ended, current };
  }
}
