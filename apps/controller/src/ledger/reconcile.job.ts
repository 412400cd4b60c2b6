// The reconciliation job: repeatable on one worker across replicas, and enqueued again (delayed by
// the time an event needs to settle) whenever a breaker closes. Two runs at once are harmless: the
// ledger store serializes passes and writes a refund at most once per event. What else a crash may
// leave is repaired by jobs that already run on their own schedules, so this one does not repeat
// them: expired probe leases (ExpireProbeLeases, every second), silent instances' heartbeat rows
// (PruneSilentInstances), breakers in OPEN/PROBING/RAMPING resumed from their stored state by the
// lifecycle tick (RampTick, every second, every non-CLOSED breaker). Events a crashed pass left
// unjudged are judged by the next pass (the pass is one transaction).
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Reconciliation } from '@recloser/control';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

export const RECONCILE_EVERY_MS = 5000;

@Injectable()
@JobHandler(JobName.Reconcile)
export class ReconcileJob implements JobHandlerInstance, OnApplicationBootstrap {
  private readonly logger = new Logger(ReconcileJob.name);

  constructor(
    private readonly reconciliation: Reconciliation,
    private readonly queues: QueueService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.Reconcile, RECONCILE_EVERY_MS);
  }

  async handle(): Promise<{ judged: number; refunded: number }> {
    const done = await this.reconciliation.run();
    if (done.refunded > 0)
      this.logger.log(`${done.refunded} refund(s) issued for ${done.judged} event(s) judged`);
    return done;
  }
}
