import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Clock } from '@recloser/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { deleteInBatches } from '../database/delete-in-batches.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 5000;
const PRUNE_BATCHES = 20;
/** silent instances stay visible to operators this long (at least an hour, or 10 TTLs) */
export const silentRetentionMs = (heartbeatTtlMs: number): number => Math.max(3_600_000, 10 * heartbeatTtlMs);

/**
 * Fleets churn (autoscaling, redeploys with fresh instance ids): rows of instances silent for
 * longer than the retention are deleted, so the tables stay proportional to the live fleet.
 */
@Injectable()
@JobHandler(JobName.PruneSilentInstances)
export class PruneSilentInstancesJob implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly queues: QueueService,
    private readonly config: ControllerConfig,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.PruneSilentInstances, PRUNE_EVERY_MS);
  }

  async handle(): Promise<{ verdicts: number; instances: number }> {
    const before = new Date(this.clock.now() - silentRetentionMs(this.config.heartbeatTtlMs));
    return {
      verdicts: await this.prune('verdicts', 'reported_at', before),
      instances: await this.prune('instances', 'last_seen_at', before),
    };
  }

  /**
   * Deletes in batches of PRUNE_BATCH rows, at most PRUNE_BATCHES per run, so a fleet that churned
   * by the hundred thousand never holds locks (or the heartbeats' buffer) for long; the rest goes
   * on the next run.
   */
  private prune(table: 'verdicts' | 'instances', column: string, before: Date): Promise<number> {
    return deleteInBatches(this.db, table, `${column} < $1`, [before], {
      batch: PRUNE_BATCH,
      batches: PRUNE_BATCHES,
    });
  }
}
