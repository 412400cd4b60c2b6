import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobWorkers } from './job-workers.js';
import { QueueService } from './queue.service.js';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [QueueService, JobWorkers],
  exports: [QueueService],
})
export class QueuesModule {}
