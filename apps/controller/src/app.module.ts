import { DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { BreakersModule } from './breakers/breakers.module.js';
import { ConfigModule } from './config/config.module.js';
import { ControlModule } from './control/control.module.js';
import { ControllerConfig } from './config/controller-config.js';
import { DatabaseModule } from './database/database.module.js';
import { GroupsModule } from './groups/groups.module.js';
import { HealthModule } from './health/health.module.js';
import { HeartbeatsModule } from './heartbeats/heartbeats.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OutboxModule } from './outbox/outbox.module.js';
import { PoolsModule } from './pools/pools.module.js';
import { ProbesModule } from './probes/probes.module.js';
import { QueuesModule } from './queues/queues.module.js';
import { RampModule } from './ramp/ramp.module.js';
import { RedisModule } from './redis/redis.module.js';
import { TransitionsModule } from './transitions/transitions.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { TelemetryModule } from './telemetry/telemetry.module.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { LedgerModule } from './ledger/ledger.module.js';

/** The controller. Features add one import line each. */
@Module({})
export class AppModule {
  static forRoot(config: ControllerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        RedisModule,
        QueuesModule,
        OutboxModule,
        ControlModule,
        HealthModule,
        MetricsModule.forRoot(config),
        AuthModule,
        PoolsModule,
        ProbesModule,
        RampModule,
        GroupsModule,
        TransitionsModule,
        BreakersModule,
        HeartbeatsModule,
        AdminModule,
        WebhooksModule,
        TelemetryModule,
        DashboardModule,
        LedgerModule,
      ],
    };
  }
}
