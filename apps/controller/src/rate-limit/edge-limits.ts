import { normalizeIP } from '@fastify/rate-limit';
import { HttpException, HttpStatus } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { bearerToken } from '../auth/bearer-token.js';
import { LuaScript } from '../redis/lua-script.js';
import type { ControllerConfig } from '../config/controller-config.js';

const WINDOW_MS = 60_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// a slow or absent Redis must not stall the fleet: the limits fail open after this long
const STORE_WAIT_MS = 250;

/**
 * One round trip per authenticated request: refuse if the address has used its failure budget;
 * else, for a write, count it against the credential (a fixed window from its first write) and
 * refuse past the budget. Answers {0} (go on), {1, pttl} (address refused) or {2, pttl} (writes).
 */
const CHECK = new LuaScript(`
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[1]) then return {1, redis.call('PTTL', KEYS[1])} end
if ARGV[3] == '1' then
  local writes = redis.call('INCR', KEYS[2])
  if writes == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
  if writes > tonumber(ARGV[2]) then return {2, redis.call('PTTL', KEYS[2])} end
end
return {0}
`);
/** A failed authentication: counted in the address's window (started by its first failure). */
const FAIL = new LuaScript(`
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return failures
`);

/** A credential's bucket: a digest, so no token is ever written to Redis. */
const credentialId = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 32);

/**
 * Per-address limit on failed authentications and per-credential limit on writes, counted in Redis
 * so every replica on the same prefix shares the counts (the keys carry one hash tag: the script's
 * two keys live on one Redis Cluster node). Runs in Fastify's onRequest, before routing, guards or
 * any database lookup; a 429 leaves through the app's exception filter in docs/api.md's shape with
 * Retry-After and retryAfterMs. A slow or absent Redis fails open.
 */
export async function registerEdgeLimits(
  app: NestFastifyApplication,
  config: ControllerConfig,
  redis: Redis,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const prefix = `${config.redisPrefix}:{edge-limits}:`;
  // addresses grouped as @fastify/rate-limit does (IPv4-mapped → IPv4, IPv6 by /56 subnet)
  const failuresKey = (req: FastifyRequest) => `${prefix}auth-failures:${normalizeIP(req.ip)}`;

  fastify.addHook('onRequest', async (req) => {
    const token = bearerToken(req.headers.authorization);
    if (token === null) return; // nothing to look up: the guards answer 401 at no cost
    // an address out of failure budget gets no more lookups, whatever key it presents
    const write = WRITE_METHODS.has(req.method);
    const answer = await failOpen(
      CHECK.run(
        redis,
        [failuresKey(req), `${prefix}writes:${credentialId(token)}`],
        [config.rateLimitAuthFailuresPerMin, config.rateLimitWritesPerMin, write ? 1 : 0, WINDOW_MS],
      ),
    );
    if (!Array.isArray(answer) || answer[0] === 0) return;
    const ttl = Number(answer[1]);
    if (answer[0] === 1) throw tooManyRequests('too many failed authentications from this address', ttl);
    throw tooManyRequests('too many writes for this credential', ttl);
  });

  // counted before the 401 is written, so a client that waits for its answer sees its own failure counted
  fastify.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 401) await failOpen(FAIL.run(redis, [failuresKey(req)], [WINDOW_MS]));
    return payload;
  });
}

function tooManyRequests(message: string, ttlMs: number): HttpException {
  // a key without expiry (PTTL -1) cannot last past its window: say the whole window
  const retryAfterMs = ttlMs > 0 ? Math.ceil(ttlMs) : WINDOW_MS;
  return new HttpException(
    { message: `${message}; retry later`, retryAfterMs },
    HttpStatus.TOO_MANY_REQUESTS,
  );
}

/** The limiter's answer, or null when Redis fails or is slow (the request then goes on unlimited). */
async function failOpen<T>(pending: Promise<T>): Promise<T | null> {
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
