import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ControlPlane } from '@recloser/control';
import { ControllerConfig } from '../config/controller-config.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';

/**
 * Periodic quorum evaluation, once per heartbeat interval on one worker across all replicas, so a
 * quorum forms (e.g. when a learning period ends) even if no further heartbeat arrives; then the
 * watches (isolated instances, quorums near their threshold) are announced on change.
 */
@Injectable()
@JobHandler(JobName.EvaluateQuorum)
export class EvaluateQuorumJob implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    private readonly queues: QueueService,
    private readonly config: ControllerConfig,
    private readonly plane: ControlPlane,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.EvaluateQuorum, this.config.heartbeatIntervalMs);
  }

  async handle(): Promise<{ opened: number; events: number }> {
    const opened = await this.plane.evaluateAll();
    const { events } = await this.plane.watch();
    return { opened, events };
  }
}
