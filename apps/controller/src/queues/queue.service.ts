import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { ControllerConfig } from '../config/controller-config.js';
import { DEFAULT_JOB_OPTIONS, JOB_QUEUE, JobName, QueueName } from './queue.constants.js';

/** Adds jobs to the right queue with the house defaults; owns the BullMQ Queue objects. */
@Injectable()
export class QueueService implements OnModuleDestroy {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly schedules = new Map<JobName, number>();
  private refresher: NodeJS.Timeout | null = null;

  /** how often the schedulers are put back: five heartbeat intervals, at least a second */
  private readonly refreshMs: number;

  constructor(private readonly config: ControllerConfig) {
    this.refreshMs = Math.max(1000, 5 * config.heartbeatIntervalMs);
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: { url: this.config.redisUrl, maxRetriesPerRequest: null },
        prefix: this.config.redisPrefix,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      });
      queue.on('error', () => undefined); // workers and readiness surface Redis trouble
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Enqueue once per jobId: the same id while a job is waiting is a no-op (deduplication). */
  async add(name: JobName, data: object, jobId?: string, opts: { delayMs?: number } = {}): Promise<void> {
    await this.queue(JOB_QUEUE[name]).add(name, data, {
      ...(jobId ? { jobId } : {}),
      ...(opts.delayMs ? { delay: opts.delayMs } : {}),
    });
  }

  /**
   * Runs `name` every `everyMs` on exactly one worker across all replicas (a BullMQ job scheduler
   * keyed by the job name; every replica upserts the same scheduler at boot).
   */
  async every(name: JobName, everyMs: number): Promise<void> {
    this.schedules.set(name, everyMs);
    await this.upsertSchedule(name, everyMs);
    // Redis may lose its data (restart without persistence): put the schedulers back now and then
    this.refresher ??= setInterval(() => {
      for (const [job, ms] of this.schedules) this.upsertSchedule(job, ms).catch(() => undefined);
    }, this.refreshMs).unref();
  }

  private async upsertSchedule(name: JobName, everyMs: number): Promise<void> {
    await this.queue(JOB_QUEUE[name]).upsertJobScheduler(name, { every: everyMs }, { name, data: {} });
  }

  async onModuleDestroy(): Promise<void> {
    if (this.refresher) clearInterval(this.refresher);
    this.refresher = null;
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
