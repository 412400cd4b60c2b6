/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape; each test asserts the fields it needs */
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { type TestDatabase, testDatabase } from './test-database.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, unknown>;
  body: T;
  text: string;
}

export interface TestApp {
  app: NestFastifyApplication;
  db: TestDatabase;
  env: NodeJS.ProcessEnv;
  /** In-process HTTP (Fastify inject): `body` is JSON-encoded unless `raw` is given. */
  request<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    opts?: { token?: string; body?: unknown; raw?: string },
  ): Promise<TestResponse<T>>;
  admin<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<TestResponse<T>>;
  /** Listens on a free loopback port and returns the base URL (for SDK clients over real HTTP). */
  listen(): Promise<string>;
  /** Closes the app but keeps its database and Redis keys (to boot another app on them: a restart). */
  stop(): Promise<void>;
  /** Closes the app, drops its database and deletes its Redis keys. */
  close(): Promise<void>;
}

/** The env a test controller boots with: its own database, its own Redis key prefix, short timers. */
export function testEnv(db: TestDatabase, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    RECLOSER_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    RECLOSER_REDIS_PREFIX: `recloser-test:${db.name}`,
    RECLOSER_HEARTBEAT_INTERVAL_MS: '200',
    RECLOSER_HEARTBEAT_TTL_MS: '1000',
    // every suite calls from 127.0.0.1; test/spine/edge-limits.test.ts tries the limits with tight values
    RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: '10000',
    ...overrides,
  };
}

/** Boots the real controller in-process on a fresh database (created and migrated by the app itself). */
export async function bootTestApp(
  overrides: NodeJS.ProcessEnv = {},
  db: TestDatabase = testDatabase(),
): Promise<TestApp> {
  const env = testEnv(db, overrides);
  const app = await createControllerApp(env);
  const fastify = app.getHttpAdapter().getInstance();
  let closed = false;

  const request: TestApp['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let payload: string | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fastify.inject({
      method,
      url: path,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: any = null;
    try {
      body = res.body ? JSON.parse(res.body) : null;
    } catch {
      body = null;
    }
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  };

  return {
    app,
    db,
    env,
    request,
    admin: (method, path, body) => request(method, path, { token: TEST_ADMIN_TOKEN, body }),
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = fastify.server.address();
      if (!address || typeof address === 'string') throw new Error('no port');
      return `http://127.0.0.1:${address.port}`;
    },
    async stop() {
      if (closed) return;
      closed = true;
      await app.close();
    },
    async close() {
      if (!closed) await app.close();
      closed = true;
      await db.drop();
      await dropRedisKeys(env.REDIS_URL!, `${env.RECLOSER_REDIS_PREFIX}:*`);
    },
  };
}

export const randomSuffix = (): string => randomBytes(4).toString('hex');

/** Deletes this test's own Redis keys (its prefix only; the shared Redis is never flushed). */
export async function dropRedisKeys(url: string, pattern: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
