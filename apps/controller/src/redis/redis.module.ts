import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { redisOptionsFromUrl } from './redis-connection.js';
import { REDIS_CLIENT } from './redis.constants.js';

/** One shared ioredis client for the whole app, exported under REDIS_CLIENT. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [ControllerConfig],
      useFactory: (config: ControllerConfig): Redis => {
        const client = new Redis({
          ...redisOptionsFromUrl(config.redisUrl),
          // fail a command quickly instead of queueing it forever while Redis is away
          maxRetriesPerRequest: 1,
          connectTimeout: 3000,
        });
        client.on('error', () => undefined); // readiness reports it; ioredis reconnects on its own
        return client;
      },
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
