import { Module } from '@nestjs/common';
import { BreakersModule } from '../breakers/breakers.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { DomainMetrics } from './domain-metrics.js';

/** The domain metrics on /metrics (the SDK itself starts in main.ts, before the app). */
@Module({
  imports: [BreakersModule, PoolsModule],
  providers: [DomainMetrics],
})
export class TelemetryModule {}
