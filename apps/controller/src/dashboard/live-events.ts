import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { ControlEvent } from '@recloser/control';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { dedupe, OutboxConsumers } from '../outbox/outbox-consumers.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

export const LIVE_VIEW_CONSUMER = 'live-view';
/** dashboards one replica streams to at once */
export const MAX_LIVE_CLIENTS = 200;

export type LiveListener = (event: ControlEvent) => void;

/**
 * The dashboard's live view: a consumer of the event seam. The relay runs on one replica at a time,
 * so it publishes each event on a Redis channel and every replica fans it out to its own
 * server-sent-event clients: a dashboard on any replica sees every event, in the relay's order.
 */
@Injectable()
export class LiveEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(LiveEvents.name);
  private readonly listeners = new Set<LiveListener>();
  private readonly channel: string;
  private subscriber: Redis | null = null;
  /** each client's shutdown hook: open streams end when the application shuts down */
  private readonly closers = new Map<LiveListener, () => void>();

  constructor(
    consumers: OutboxConsumers,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.channel = `${config.redisPrefix}:live-events`;
    consumers.register(
      LIVE_VIEW_CONSUMER,
      dedupe((event) => this.publish(event)),
    );
  }

  async onModuleInit(): Promise<void> {
    const sub = this.redis.duplicate();
    sub.on('error', (err: Error) => this.logger.warn(`live events subscriber: ${err.message}`));
    sub.on('message', (_channel: string, message: string) => {
      let event: ControlEvent;
      try {
        event = JSON.parse(message) as ControlEvent;
      } catch {
        return;
      }
      for (const listener of this.listeners) listener(event);
    });
    await sub.subscribe(this.channel);
    this.subscriber = sub;
  }

  async onModuleDestroy(): Promise<void> {
    // end the open streams, or the HTTP server would wait for them when closing
    for (const close of [...this.closers.values()]) close();
    this.closers.clear();
    this.listeners.clear();
    const sub = this.subscriber;
    this.subscriber = null;
    if (sub) sub.disconnect();
  }

  get clients(): number {
    return this.listeners.size;
  }

  /**
   * Adds a client unless MAX_LIVE_CLIENTS are connected: `listener` gets each event, `onShutdown`
   * runs if the application stops first. Returns its removal, or null when full.
   */
  listen(listener: LiveListener, onShutdown: () => void): (() => void) | null {
    if (this.listeners.size >= MAX_LIVE_CLIENTS) return null;
    this.listeners.add(listener);
    this.closers.set(listener, onShutdown);
    return () => {
      this.listeners.delete(listener);
      this.closers.delete(listener);
    };
  }

  private async publish(event: ControlEvent): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(event));
  }
}
