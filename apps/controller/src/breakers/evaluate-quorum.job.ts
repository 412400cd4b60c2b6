import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ControllerConfig } from '../config/controller-config.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { QuorumEvaluationService } from './quorum-evaluation.service.js';

/**
 * Periodic quorum evaluation, once per heartbeat interval on one worker across all replicas, so a
 * quorum forms (e.g. when a learning period ends) even if no further heartbeat arrives.
 */
@Injectable()
@JobHandler(JobName.EvaluateQuorum)
export class EvaluateQuorumJob implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    private readonly queues: QueueService,
    private readonly config: ControllerConfig,
    private readonly quorum: QuorumEvaluationService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.EvaluateQuorum, this.config.heartbeatIntervalMs);
  }

  async handle(): Promise<{ opened: number }> {
    return { opened: await this.quorum.evaluateAll() };
  }
}
