import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type BreakerVerdict, type Evidence, isLocallyOpen, type QuorumRow } from '@recloser/core';
import { DataSource, EntityManager, In, MoreThan } from 'typeorm';
import { VerdictEntity } from './verdict.entity.js';

/** A stored verdict as core's quorum functions read it, plus what operators see. */
export interface VerdictRow extends QuorumRow {
  evidence: Evidence;
  demand: Record<string, number> | null;
  reportedSince: string | null;
}

@Injectable()
export class VerdictsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Upserts an instance's verdict. open_since is the controller's own first-seen time of the current
   * locally-open run: kept while the instance stays open and live, reset when it closes or went silent.
   */
  async upsert(
    breakerId: string,
    instanceId: string,
    region: string,
    verdict: BreakerVerdict,
    now: number,
    heartbeatTtlMs: number,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO verdicts (breaker_id, instance_id, region, state, open_since, reported_since, evidence, demand, reported_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $9::boolean THEN $8::timestamptz END, $5, $6, $7, $8)
       ON CONFLICT (breaker_id, instance_id) DO UPDATE SET
         region = EXCLUDED.region,
         state = EXCLUDED.state,
         open_since = CASE
           WHEN NOT $9::boolean THEN NULL
           WHEN verdicts.open_since IS NOT NULL AND verdicts.reported_at > $10::timestamptz THEN verdicts.open_since
           ELSE EXCLUDED.reported_at END,
         reported_since = EXCLUDED.reported_since,
         evidence = EXCLUDED.evidence,
         demand = EXCLUDED.demand,
         reported_at = EXCLUDED.reported_at`,
      [
        breakerId,
        instanceId,
        region,
        verdict.state,
        verdict.since ?? null,
        JSON.stringify(verdict.evidence),
        verdict.demand ? JSON.stringify(verdict.demand) : null,
        new Date(now),
        isLocallyOpen(verdict.state),
        new Date(now - heartbeatTtlMs),
      ],
    );
  }

  /** Verdicts of one breaker reported after `since` (ms); all of them when `since` is null. */
  async rows(
    breakerId: string,
    since: number | null,
    manager: EntityManager = this.db.manager,
  ): Promise<VerdictRow[]> {
    const found = await manager.getRepository(VerdictEntity).find({
      where: since === null ? { breakerId } : { breakerId, reportedAt: MoreThan(new Date(since)) },
      order: { instanceId: 'ASC' },
    });
    return found.map(toRow);
  }

  /** Verdicts reported after `since` for many breakers at once, grouped by breaker id. */
  async rowsByBreaker(breakerIds: string[], since: number): Promise<Map<string, VerdictRow[]>> {
    const byBreaker = new Map<string, VerdictRow[]>(breakerIds.map((id) => [id, []]));
    if (breakerIds.length === 0) return byBreaker;
    const found = await this.db.getRepository(VerdictEntity).find({
      where: { breakerId: In(breakerIds), reportedAt: MoreThan(new Date(since)) },
    });
    for (const v of found) byBreaker.get(v.breakerId)?.push(toRow(v));
    return byBreaker;
  }

  /** Breakers that have a live verdict other than closed: the only ones a quorum could open. */
  async breakersWithLiveTrouble(since: number): Promise<string[]> {
    const rows: { breaker_id: string }[] = await this.db.query(
      `SELECT DISTINCT v.breaker_id FROM verdicts v JOIN breakers b ON b.id = v.breaker_id
       WHERE b.state = 'closed' AND v.reported_at > $1 AND v.state <> 'closed'`,
      [new Date(since)],
    );
    return rows.map((r) => r.breaker_id);
  }
}

function toRow(v: VerdictEntity): VerdictRow {
  return {
    instanceId: v.instanceId,
    region: v.region,
    state: v.state,
    lastSeenAt: v.reportedAt.getTime(),
    openSince: v.openSince ? v.openSince.getTime() : null,
    evidence: v.evidence,
    demand: v.demand,
    reportedSince: v.reportedSince,
  };
}
