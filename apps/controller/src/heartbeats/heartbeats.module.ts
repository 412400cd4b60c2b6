import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceiptsModule } from '../receipts/receipts.module.js';
import { HeartbeatsController } from './heartbeats.controller.js';
import { HeartbeatsService } from './heartbeats.service.js';
import { InstanceEntity } from './instance.entity.js';
import { ArchiveIdleJob } from './archive-idle.job.js';
import { PruneSilentInstancesJob } from './prune-silent-instances.job.js';

@Module({
  imports: [TypeOrmModule.forFeature([InstanceEntity]), ReceiptsModule],
  controllers: [HeartbeatsController],
  providers: [HeartbeatsService, PruneSilentInstancesJob, ArchiveIdleJob],
})
export class HeartbeatsModule {}
