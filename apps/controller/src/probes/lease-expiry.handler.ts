// Lease expiry, one runner across replicas: every second, drop the expired probe leases of every
// pool that ever fenced (grants sweep their own pool too; this catches pools nobody asks about),
// so an idle prober's lease frees its slot and its holder is passed over at the next designation.
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { countProbeTokens } from '../telemetry/controller-metrics.js';

export const LEASE_EXPIRY_MS = 1000;

@Injectable()
@JobHandler(JobName.ExpireProbeLeases)
export class LeaseExpiryHandler implements JobHandlerInstance, OnApplicationBootstrap {
  private readonly logger = new Logger(LeaseExpiryHandler.name);

  constructor(
    private readonly plane: ControlPlane,
    private readonly queues: QueueService,
  ) {}

  /** QueueService.every also puts the schedule back after Redis lost its data. */
  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.ExpireProbeLeases, LEASE_EXPIRY_MS);
  }

  async handle(): Promise<{ pools: number; expired: number }> {
    const swept = await this.plane.sweepLeases();
    if (swept.expired > 0) countProbeTokens('expired', swept.expired);
    if (swept.expired > 0) this.logger.log(`${swept.expired} probe lease(s) expired unused`);
    return swept;
  }
}
