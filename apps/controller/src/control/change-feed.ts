// The control layer's ChangeFeed on Redis pub/sub: a replica that commits a transition announces
// the breaker; every other replica drops it from its view, so its next heartbeat for that breaker
// reads the new state instead of answering from the old one. Best effort by design: a lost message
// only leaves a view stale until BREAKER_VIEW_MS runs out.
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ChangeFeed } from '@recloser/control';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

@Injectable()
export class RedisChangeFeed implements ChangeFeed, OnApplicationShutdown {
  private readonly logger = new Logger(RedisChangeFeed.name);
  private readonly channel: string;
  /** this replica's own announcements come back to it: told apart by this id */
  private readonly replica = randomUUID();
  private subscriber: Redis | null = null;
  private readonly listeners: ((breakerId: string) => void)[] = [];

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.channel = `${config.redisPrefix}:breaker-changed`;
  }

  announce(breakerId: string): void {
    this.redis.publish(this.channel, `${this.replica} ${breakerId}`).catch((err: unknown) => {
      this.logger.warn(`announcing a change of breaker ${breakerId}: ${(err as Error).message}`);
    });
  }

  listen(listener: (breakerId: string) => void): void {
    this.listeners.push(listener);
    if (this.subscriber) return;
    // a subscribed connection can do nothing else: its own
    const sub = this.redis.duplicate();
    sub.on('error', () => undefined); // ioredis reconnects (and resubscribes) on its own
    sub.on('message', (_channel: string, message: string) => {
      const [from, breakerId] = message.split(' ');
      if (from === this.replica || !breakerId) return;
      for (const l of this.listeners) l(breakerId);
    });
    sub.subscribe(this.channel).catch((err: unknown) => {
      this.logger.warn(`subscribing to ${this.channel}: ${(err as Error).message}`);
    });
    this.subscriber = sub;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
