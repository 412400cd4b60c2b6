import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { BreakersController } from './breakers.controller.js';
import { BreakersService } from './breakers.service.js';
import { EvaluateQuorumJob } from './evaluate-quorum.job.js';

/** Read views of breakers and the periodic quorum job (the state's one writer is in ControlModule). */
@Module({
  imports: [GroupsModule, PoolsModule],
  controllers: [BreakersController],
  providers: [BreakersService, EvaluateQuorumJob],
  exports: [BreakersService],
})
export class BreakersModule {}
