import { Module } from '@nestjs/common';
import { BreakersModule } from '../breakers/breakers.module.js';
import { GroupsModule } from '../groups/groups.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { TransitionsModule } from '../transitions/transitions.module.js';
import { AdminController } from './admin.controller.js';
import { AdminService } from './admin.service.js';

@Module({
  imports: [BreakersModule, GroupsModule, PoolsModule, TransitionsModule],
  controllers: [AdminController],
  providers: [AdminService],
})
export class AdminModule {}
