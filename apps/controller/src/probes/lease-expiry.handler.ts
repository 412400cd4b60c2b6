// Lease expiry, one runner across replicas: every second, drop the expired probe leases of every
// pool that ever fenced (grants sweep their own pool too; this catches pools nobody asks about),
// so an idle prober's lease frees its slot and its holder is passed over at the next designation.
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { ProbeLeaseStore } from './probe-lease.store.js';

export const LEASE_EXPIRY_MS = 1000;
const RESCHEDULE_MS = 10_000;

@Injectable()
@JobHandler(JobName.ExpireProbeLeases)
export class LeaseExpiryHandler implements JobHandlerInstance, OnApplicationBootstrap, OnApplicationShutdown {
  private reschedule: NodeJS.Timeout | null = null;
  private readonly logger = new Logger(LeaseExpiryHandler.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly leases: ProbeLeaseStore,
    private readonly queues: QueueService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.ExpireProbeLeases, LEASE_EXPIRY_MS);
    // the schedule lives in Redis: if Redis loses its data, the next upsert brings it back
    this.reschedule = setInterval(() => {
      this.queues.every(JobName.ExpireProbeLeases, LEASE_EXPIRY_MS).catch(() => undefined);
    }, RESCHEDULE_MS);
    this.reschedule.unref();
  }

  onApplicationShutdown(): void {
    if (this.reschedule) clearInterval(this.reschedule);
  }

  async handle(): Promise<{ pools: number; expired: number }> {
    const rows: { pool_id: string }[] = await this.db.query(`SELECT pool_id FROM probe_fencing`);
    let expired = 0;
    for (const { pool_id } of rows) expired += await this.leases.sweep(pool_id);
    if (expired > 0) this.logger.log(`${expired} probe lease(s) expired unused`);
    return { pools: rows.length, expired };
  }
}
