import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GroupsModule } from '../groups/groups.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { TransitionsModule } from '../transitions/transitions.module.js';
import { BreakerStateService } from './breaker-state.service.js';
import { BreakerEntity } from './breaker.entity.js';
import { BreakersController } from './breakers.controller.js';
import { BreakersService } from './breakers.service.js';
import { EvaluateQuorumJob } from './evaluate-quorum.job.js';
import { QuorumEvaluationService } from './quorum-evaluation.service.js';
import { VerdictEntity } from './verdict.entity.js';
import { VerdictsRepository } from './verdicts.repository.js';

/** Global breakers: their state (one writer: BreakerStateService), verdicts, quorum, read views. */
@Module({
  imports: [
    TypeOrmModule.forFeature([BreakerEntity, VerdictEntity]),
    GroupsModule,
    PoolsModule,
    TransitionsModule,
  ],
  controllers: [BreakersController],
  providers: [
    BreakerStateService,
    VerdictsRepository,
    QuorumEvaluationService,
    BreakersService,
    EvaluateQuorumJob,
  ],
  exports: [BreakerStateService, VerdictsRepository, QuorumEvaluationService, BreakersService, TypeOrmModule],
})
export class BreakersModule {}
