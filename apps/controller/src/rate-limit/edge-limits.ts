import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { HttpException, HttpStatus } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { bearerToken } from '../auth/bearer-token.js';
import type { ControllerConfig } from '../config/controller-config.js';

const WINDOW_MS = 60_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// a slow or absent Redis must not stall the fleet: the limits fail open after this long
const STORE_WAIT_MS = 250;

type Limiter = (req: FastifyRequest, options?: { increment?: boolean }) => Promise<LimitState>;
type LimitState =
  { isAllowed: true } | { isAllowed: false; remaining: number; ttl: number; isExceeded: boolean };

/** A credential's bucket: a digest, so no token is ever written to Redis. */
const credentialId = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 32);

/**
 * Per-address limit on failed authentications and per-credential limit on writes, counted in Redis
 * by @fastify/rate-limit so every replica on the same prefix shares the counts. Runs in Fastify's
 * onRequest, before routing, guards or any database lookup; a 429 leaves through the app's
 * exception filter in docs/api.md's shape with Retry-After and retryAfterMs.
 */
export async function registerEdgeLimits(
  app: NestFastifyApplication,
  config: ControllerConfig,
  redis: Redis,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(rateLimit, {
    global: false, // no per-route limits: the two limiters below are called from the hooks
    redis,
    nameSpace: `${config.redisPrefix}:rate-limit:`,
    skipOnError: true,
  });
  const authFailures: Limiter = fastify.createRateLimit({
    max: config.rateLimitAuthFailuresPerMin,
    timeWindow: WINDOW_MS,
    keyGenerator: (req) => `auth-failures:${normalizeIP(req.ip)}`,
  });
  const writes: Limiter = fastify.createRateLimit({
    max: config.rateLimitWritesPerMin,
    timeWindow: WINDOW_MS,
    keyGenerator: (req) => `writes:${credentialId(bearerToken(req.headers.authorization) ?? '')}`,
  });

  fastify.addHook('onRequest', async (req) => {
    const token = bearerToken(req.headers.authorization);
    if (token === null) return; // nothing to look up: the guards answer 401 at no cost
    // an address out of failure budget gets no more lookups, whatever key it presents
    const failures = await failOpen(authFailures(req, { increment: false }));
    if (failures && !failures.isAllowed && failures.remaining <= 0) {
      throw tooManyRequests('too many failed authentications from this address', failures.ttl);
    }
    if (!WRITE_METHODS.has(req.method)) return;
    const written = await failOpen(writes(req));
    if (written && !written.isAllowed && written.isExceeded) {
      throw tooManyRequests('too many writes for this credential', written.ttl);
    }
  });

  // counted before the 401 is written, so a client that waits for its answer sees its own failure counted
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 401) await failOpen(authFailures(req));
    return payload;
  });
}

function tooManyRequests(message: string, ttlMs: number): HttpException {
  return new HttpException(
    { message: `${message}; retry later`, retryAfterMs: Math.max(1, Math.ceil(ttlMs)) },
    HttpStatus.TOO_MANY_REQUESTS,
  );
}

/** The limiter's answer, or null when Redis fails or is slow (the request then goes on unlimited). */
async function failOpen(pending: Promise<LimitState>): Promise<LimitState | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), STORE_WAIT_MS);
  });
  try {
    return await Promise.race([pending.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}
