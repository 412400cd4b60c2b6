import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { Worker } from 'bullmq';
import { ControllerConfig } from '../config/controller-config.js';
import { StartupError } from '../common/startup-error.js';
import { checkJobHandlers } from './check-job-handlers.js';
import { JOB_HANDLER_METADATA, type JobHandlerInstance } from './job-handler.js';
import { JOB_QUEUE, JobName, QUEUE_CONCURRENCY, QueueName } from './queue.constants.js';

/** Finds every @JobHandler, checks each job has exactly one, and runs one BullMQ worker per queue. */
@Injectable()
export class JobWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JobWorkers.name);
  private readonly workers: Worker[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly config: ControllerConfig,
  ) {}

  onApplicationBootstrap(): void {
    const handlers = new Map<string, JobHandlerInstance>();
    const found: { jobName: string; handler: string }[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const { metatype, instance } = wrapper;
      if (!metatype || !instance || typeof metatype !== 'function') continue;
      const jobName = this.reflector.get<JobName | undefined>(JOB_HANDLER_METADATA, metatype);
      if (!jobName) continue;
      found.push({ jobName, handler: metatype.name });
      handlers.set(jobName, instance as JobHandlerInstance);
    }
    const problems = checkJobHandlers(Object.values(JobName), found);
    if (problems.length > 0) throw new StartupError(`Job handlers are miswired: ${problems.join('; ')}`);

    for (const queue of Object.values(QueueName)) {
      const worker = new Worker(
        queue,
        async (job) => {
          const handler = handlers.get(job.name);
          if (!handler || JOB_QUEUE[job.name as JobName] !== queue)
            throw new Error(`no handler for job ${job.name}`);
          return handler.handle(job);
        },
        {
          connection: { url: this.config.redisUrl, maxRetriesPerRequest: null },
          prefix: this.config.redisPrefix,
          concurrency: QUEUE_CONCURRENCY[queue] ?? 1,
        },
      );
      worker.on('failed', (job, err) => this.logger.warn(`job ${job?.name} failed: ${err.message}`));
      worker.on('error', (err) => this.logger.warn(`worker ${queue}: ${err.message}`));
      this.workers.push(worker);
    }
  }

  /** before the database and Redis close (their onApplicationShutdown), so no job runs against a closed pool */
  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    this.workers.length = 0;
  }
}
