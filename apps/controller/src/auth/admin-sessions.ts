import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ControllerConfig } from '../config/controller-config.js';

/** The dashboard's session cookie: HttpOnly, SameSite=Strict, the whole controller's path. */
export const SESSION_COOKIE = 'recloser_session';
export const SESSION_TTL_MS = 12 * 3_600_000;

const digest = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The value of `name` in a Cookie header, or null. */
export function cookieValue(header: string | string[] | undefined, name: string): string | null {
  const value = Array.isArray(header) ? header.join('; ') : header;
  if (!value) return null;
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/**
 * Admin sessions in Redis (every replica sees them; a restart keeps them): the admin token buys a
 * random session id, kept only as its digest, expiring after SESSION_TTL_MS; logout deletes it.
 */
export class AdminSessions {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.prefix = `${config.redisPrefix}:session:`;
  }

  async create(): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.redis.set(this.prefix + digest(id), '1', 'PX', SESSION_TTL_MS);
    return id;
  }

  async valid(id: string | null): Promise<boolean> {
    if (!id || id.length > 100) return false;
    return (await this.redis.exists(this.prefix + digest(id))) === 1;
  }

  async end(id: string | null): Promise<void> {
    if (id && id.length <= 100) await this.redis.del(this.prefix + digest(id));
  }

  /** The Set-Cookie value for a session id (or for clearing it, with null). */
  static cookie(id: string | null, secure: boolean): string {
    const attrs = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
    return id === null
      ? `${SESSION_COOKIE}=; Max-Age=0; ${attrs.join('; ')}`
      : `${SESSION_COOKIE}=${id}; Max-Age=${SESSION_TTL_MS / 1000}; ${attrs.join('; ')}`;
  }
}
