import { Module } from '@nestjs/common';
import { BreakersModule } from '../breakers/breakers.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { ProbesModule } from '../probes/probes.module.js';
import { AllowanceDivisionCache } from './allowance-division.cache.js';
import { LiveDemandRepository } from './live-demand.repository.js';
import { RampEvidenceStore } from './ramp-evidence.store.js';
import { RampTickHandler } from './ramp-tick.handler.js';
import { RecoveryPlanService } from './recovery-plan.service.js';

/** The ramp: its tick job, the step evidence, and the recovery part of each heartbeat's plan. */
@Module({
  imports: [PoolsModule, ProbesModule, BreakersModule],
  providers: [
    AllowanceDivisionCache,
    LiveDemandRepository,
    RampEvidenceStore,
    RampTickHandler,
    RecoveryPlanService,
  ],
  exports: [RecoveryPlanService, RampEvidenceStore],
})
export class RampModule {}
