import { Module } from '@nestjs/common';
import { BreakersModule } from '../breakers/breakers.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { DomainMetrics } from './domain-metrics.js';
import { RouteSpans } from './route-spans.js';

/** The domain metrics on /metrics and route names on server spans (the SDK starts in main.ts, before the app). */
@Module({
  imports: [BreakersModule, PoolsModule],
  providers: [DomainMetrics, RouteSpans],
})
export class TelemetryModule {}
