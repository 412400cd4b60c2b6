import { SetMetadata } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName } from './queue.constants.js';

export const JOB_HANDLER_METADATA = 'recloser:job-handler';

/** A provider that runs one kind of job. Mark it with @JobHandler(JobName.X). */
export interface JobHandlerInstance {
  handle(job: Job): Promise<unknown>;
}

export const JobHandler = (name: JobName): ClassDecorator => SetMetadata(JOB_HANDLER_METADATA, name);
