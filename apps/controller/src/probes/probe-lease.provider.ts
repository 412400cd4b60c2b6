import type { Provider } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { FencingRepository } from '../pools/fencing.repository.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import { ProbeLeaseStore } from './probe-lease.store.js';

/** The lease store on the shared Redis client, under the controller's key prefix. */
export const probeLeaseStoreProvider: Provider = {
  provide: ProbeLeaseStore,
  inject: [REDIS_CLIENT, FencingRepository, ControllerConfig],
  useFactory: (redis: Redis, fencing: FencingRepository, config: ControllerConfig) =>
    new ProbeLeaseStore(redis, fencing, `${config.redisPrefix}:`),
};
