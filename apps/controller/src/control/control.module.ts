import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { wallClock } from '@recloser/core';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakerEntity } from '../breakers/breaker.entity.js';
import { VerdictEntity } from '../breakers/verdict.entity.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { GroupsModule } from '../groups/groups.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { probeLeaseStoreProvider } from '../probes/probe-lease.provider.js';
import { ProbeLeaseStore } from '../probes/probe-lease.store.js';
import { AllowanceDivisionCache } from '../ramp/allowance-division.cache.js';
import { RampEvidenceStore } from '../ramp/ramp-evidence.store.js';
import { TransitionsModule } from '../transitions/transitions.module.js';
import { ReceiptsModule } from '../receipts/receipts.module.js';
import { RedisChangeFeed } from './change-feed.js';
import { CONTROL_CLOCK } from './clock.js';
import { ControlConsumer } from './control.consumer.js';
import { controlPlaneProvider } from './control-plane.provider.js';
import { RedisWatchStore } from './watch.store.js';
import { RegionShiftsStore } from './region-shifts.store.js';
import { ControlPlane } from '@recloser/control';

/**
 * The control layer's ports on Postgres and Redis, and the ControlPlane over them. Global: every
 * feature module (heartbeats, probes, admin, jobs) calls the one ControlPlane.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature([BreakerEntity, VerdictEntity]),
    GroupsModule,
    PoolsModule,
    TransitionsModule,
    OutboxModule,
    ReceiptsModule,
  ],
  providers: [
    { provide: CONTROL_CLOCK, useValue: wallClock },
    BreakerStateService,
    VerdictsRepository,
    probeLeaseStoreProvider,
    RampEvidenceStore,
    AllowanceDivisionCache,
    RedisWatchStore,
    RedisChangeFeed,
    controlPlaneProvider,
    ControlConsumer,
    RegionShiftsStore,
  ],
  exports: [
    CONTROL_CLOCK,
    BreakerStateService,
    VerdictsRepository,
    ProbeLeaseStore,
    RampEvidenceStore,
    ControlPlane,
    TypeOrmModule,
    RegionShiftsStore,
  ],
})
export class ControlModule {}
