import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BreakersModule } from '../breakers/breakers.module.js';
import { GroupsModule } from '../groups/groups.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { RampModule } from '../ramp/ramp.module.js';
import { HeartbeatsController } from './heartbeats.controller.js';
import { HeartbeatsService } from './heartbeats.service.js';
import { InstanceEntity } from './instance.entity.js';
import { PruneSilentInstancesJob } from './prune-silent-instances.job.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([InstanceEntity]),
    BreakersModule,
    GroupsModule,
    PoolsModule,
    RampModule,
  ],
  controllers: [HeartbeatsController],
  providers: [HeartbeatsService, PruneSilentInstancesJob],
})
export class HeartbeatsModule {}
