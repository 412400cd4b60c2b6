import { DynamicModule, Module } from '@nestjs/common';
import type { ControllerConfig } from '../config/controller-config.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { ControlEventsMetrics } from './control-events.consumer.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsGuard } from './metrics.guard.js';
import { MetricsServer } from './metrics.server.js';

/** /metrics on PORT, or on RECLOSER_METRICS_PORT only when that is set. */
@Module({})
export class MetricsModule {
  static forRoot(config: ControllerConfig): DynamicModule {
    return {
      module: MetricsModule,
      imports: [OutboxModule],
      controllers: config.metricsPort === null ? [MetricsController] : [],
      providers: [ControlEventsMetrics, MetricsGuard, MetricsServer],
    };
  }
}
