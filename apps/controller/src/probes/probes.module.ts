import { Module } from '@nestjs/common';
import { BreakersModule } from '../breakers/breakers.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { LeaseExpiryHandler } from './lease-expiry.handler.js';
import { probeLeaseStoreProvider } from './probe-lease.provider.js';
import { ProbeLeaseStore } from './probe-lease.store.js';
import { ProbesController } from './probes.controller.js';
import { ProbesService } from './probes.service.js';

@Module({
  imports: [PoolsModule, BreakersModule],
  controllers: [ProbesController],
  providers: [probeLeaseStoreProvider, ProbesService, LeaseExpiryHandler],
  exports: [ProbeLeaseStore],
})
export class ProbesModule {}
