import { Redis, type RedisOptions } from 'ioredis';
import { describeError, redactUrl, StartupError } from '../common/startup-error.js';

/** ioredis options from a redis:// URL (BullMQ takes options, not URLs). */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const options: RedisOptions = {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
  };
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  const db = u.pathname.replace(/^\//, '');
  if (db) options.db = Number(db);
  if (u.protocol === 'rediss:') options.tls = {};
  return options;
}

/** Fails fast with a clear message when Redis does not answer a PING within a few seconds. */
export async function assertRedisReachable(url: string): Promise<void> {
  const probe = new Redis({
    ...redisOptionsFromUrl(url),
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let cause: unknown = null;
  probe.on('error', (err) => (cause ??= err)); // the socket error says more than "Connection is closed"
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new StartupError(
      `Cannot reach Redis at ${redactUrl(url)} (${describeError(cause ?? err)}). ` +
        'Start Redis or set REDIS_URL to a server that answers.',
    );
  } finally {
    probe.disconnect();
  }
}
