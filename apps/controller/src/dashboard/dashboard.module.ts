import { Module } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard.js';
import { AdminSessions } from '../auth/admin-sessions.js';
import { BreakersModule } from '../breakers/breakers.module.js';
import { ControllerConfig } from '../config/controller-config.js';
import { GroupsModule } from '../groups/groups.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { PoolsModule } from '../pools/pools.module.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import { TransitionsModule } from '../transitions/transitions.module.js';
import { RedisWatchStore } from '../control/watch.store.js';
import { DashboardController } from './dashboard.controller.js';
import { DashboardService } from './dashboard.service.js';
import { LiveEvents } from './live-events.js';
import { OperatorConfigController } from './operator-config.controller.js';
import { SessionController } from './session.controller.js';
import { TimelineSamplerJob } from './timeline-sampler.job.js';
import type { Redis } from 'ioredis';

/**
 * What the dashboard (apps/dashboard) needs from the controller beyond the admin API: login with a
 * session cookie, the live view (server-sent events fed by the event seam), a breaker's timeline and
 * its filtered instances. The built assets are served by registerDashboard (app.factory.ts).
 */
@Module({
  imports: [OutboxModule, BreakersModule, PoolsModule, GroupsModule, TransitionsModule],
  controllers: [SessionController, DashboardController, OperatorConfigController],
  providers: [
    DashboardService,
    LiveEvents,
    TimelineSamplerJob,
    // its own instance of the control layer's watch store (a stateless reader of the same keys)
    RedisWatchStore,
    AdminGuard,
    {
      provide: AdminSessions,
      inject: [REDIS_CLIENT, ControllerConfig],
      useFactory: (redis: Redis, config: ControllerConfig) => new AdminSessions(redis, config),
    },
  ],
})
export class DashboardModule {}
