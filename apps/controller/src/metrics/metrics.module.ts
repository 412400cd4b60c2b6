import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { ControlEventsMetrics } from './control-events.consumer.js';
import { MetricsController } from './metrics.controller.js';

@Module({
  imports: [OutboxModule],
  controllers: [MetricsController],
  providers: [ControlEventsMetrics],
})
export class MetricsModule {}
