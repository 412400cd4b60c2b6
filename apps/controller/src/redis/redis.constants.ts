/** Injection token of the shared ioredis client: `@Inject(REDIS_CLIENT) redis: Redis`. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
