// The lifecycle's clock, one runner across replicas (a BullMQ job scheduler): every
// LIFECYCLE_TICK_MS (a quarter second) the control plane ticks each breaker that is not CLOSED —
// OPEN → PROBING after its cooldown, a RAMPING breaker judged on its step's sample
// (ControlPlane.tick; the decisions are core onTick's).
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ControlPlane, LIFECYCLE_TICK_MS } from '@recloser/control';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

@Injectable()
@JobHandler(JobName.RampTick)
export class RampTickHandler implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    private readonly plane: ControlPlane,
    private readonly queues: QueueService,
  ) {}

  /** QueueService.every also puts the schedule back after Redis lost its data. */
  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.RampTick, LIFECYCLE_TICK_MS);
  }

  handle(): Promise<{ breakers: number; transitions: number }> {
    return this.plane.tick();
  }
}
