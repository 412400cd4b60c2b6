import type { JobsOptions } from 'bullmq';

/** Every BullMQ queue of the controller. */
export enum QueueName {
  Breakers = 'breakers',
}

/** Every job name, and the queue it runs on. Each must have exactly one @JobHandler (checked at boot). */
export const JobName = {} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

export const JOB_QUEUE: Record<JobName, QueueName> = {};

/** Defaults for every job; a job that fails is not retried blindly, the next period runs it again. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 500 },
};
