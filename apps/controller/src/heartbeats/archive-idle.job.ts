import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Clock } from '@recloser/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

const ARCHIVE_EVERY_MS = 60_000;
/** rows archived per run and kind: a backlog of thousands drains over a few runs, never one long statement */
export const ARCHIVE_BATCH = 500;

export interface ArchiveRun {
  breakers: number;
  groups: number;
  restoredBreakers: number;
  restoredGroups: number;
}

/**
 * Issue 9: a fleet that created thousands of breakers and left keeps them in every list. CLOSED
 * breakers of a group without a live instance for RECLOSER_ARCHIVE_AFTER_MS are marked archived
 * (lists skip them; the rows and their transition chains stay), then groups with no listed breaker
 * and no live instance. A heartbeat clears the marks at once (VerdictsRepository.record); this job
 * also clears any a heartbeat raced past.
 */
@Injectable()
@JobHandler(JobName.ArchiveIdle)
export class ArchiveIdleJob implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly queues: QueueService,
    private readonly config: ControllerConfig,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.ArchiveIdle, ARCHIVE_EVERY_MS);
  }

  async handle(): Promise<ArchiveRun> {
    const now = new Date(this.clock.now());
    const cutoff = new Date(now.getTime() - this.config.archiveAfterMs);
    // presence rows are pruned after an hour: remember each group's last live instance first
    await this.db.query(
      `UPDATE fleet_groups g SET last_live_at = m.last
       FROM (SELECT group_name, max(last_seen_at) AS last FROM instances GROUP BY group_name) m
       WHERE g.group_name = m.group_name AND (g.last_live_at IS NULL OR g.last_live_at < m.last)`,
    );
    // archived, then heard of within the window (a heartbeat that raced the archival): listed again
    const [, restoredBreakers] = await this.db.query(
      `UPDATE breakers b SET archived_at = NULL
       WHERE b.archived_at IS NOT NULL
         AND EXISTS (SELECT 1 FROM verdicts v WHERE v.breaker_id = b.id AND v.reported_at >= $1)`,
      [cutoff],
    );
    const [, restoredGroups] = await this.db.query(
      `UPDATE fleet_groups SET archived_at = NULL WHERE archived_at IS NOT NULL AND last_live_at >= $1`,
      [cutoff],
    );
    // only CLOSED ones, re-checked on the locked row: a transition holds the lock and clears the mark
    const [, breakers] = await this.db.query(
      `UPDATE breakers SET archived_at = $1
       WHERE state = 'closed' AND id IN (
         SELECT b.id FROM breakers b JOIN fleet_groups g ON g.group_name = b.group_name
         WHERE b.archived_at IS NULL AND b.state = 'closed' AND b.updated_at < $2
           AND g.first_seen_at < $2 AND (g.last_live_at IS NULL OR g.last_live_at < $2)
           AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.group_name = b.group_name AND i.last_seen_at >= $2)
           AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.breaker_id = b.id AND v.reported_at >= $2)
         ORDER BY b.id LIMIT $3
         FOR UPDATE OF b SKIP LOCKED)`,
      [now, cutoff, ARCHIVE_BATCH],
    );
    const [, groups] = await this.db.query(
      `UPDATE fleet_groups SET archived_at = $1
       WHERE group_name IN (
         SELECT g.group_name FROM fleet_groups g
         WHERE g.archived_at IS NULL AND g.first_seen_at < $2
           AND (g.last_live_at IS NULL OR g.last_live_at < $2)
           AND NOT EXISTS (SELECT 1 FROM breakers b WHERE b.group_name = g.group_name AND b.archived_at IS NULL)
           AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.group_name = g.group_name AND i.last_seen_at >= $2)
         ORDER BY g.group_name LIMIT $3)`,
      [now, cutoff, ARCHIVE_BATCH],
    );
    return {
      breakers: Number(breakers ?? 0),
      groups: Number(groups ?? 0),
      restoredBreakers: Number(restoredBreakers ?? 0),
      restoredGroups: Number(restoredGroups ?? 0),
    };
  }
}
