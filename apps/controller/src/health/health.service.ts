import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

export interface DependencyCheck {
  status: 'up' | 'down';
  error?: string;
}

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(
        () => reject(new Error(`${what} did not answer in ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      ).unref(),
    ),
  ]);
}

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
  ) {}

  checkPostgres(): Promise<DependencyCheck> {
    return check('PostgreSQL', () => this.dataSource.query('SELECT 1'));
  }

  checkRedis(): Promise<DependencyCheck> {
    return check('Redis', () => this.redis.ping());
  }
}

async function check(what: string, ask: () => Promise<unknown>): Promise<DependencyCheck> {
  try {
    await withTimeout(ask(), what);
    return { status: 'up' };
  } catch (err) {
    return { status: 'down', error: (err as Error).message };
  }
}
