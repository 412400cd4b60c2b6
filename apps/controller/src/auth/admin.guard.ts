import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import { AdminSessions, cookieValue, SESSION_COOKIE } from './admin-sessions.js';
import { bearerToken } from './bearer-token.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Admin endpoints: `Authorization: Bearer $RECLOSER_ADMIN_TOKEN`, compared in constant time, or the
 * dashboard's session cookie (made by POST /v1/admin/session with that token).
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | null;
  private readonly sessions: AdminSessions;

  constructor(config: ControllerConfig, @Inject(REDIS_CLIENT) redis: Redis) {
    this.expected = config.adminToken ? digest(config.adminToken) : null;
    this.sessions = new AdminSessions(redis, config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token) {
      const session = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (session !== null && (await this.sessions.valid(session))) return true;
      throw new UnauthorizedException('missing admin token (Authorization: Bearer <token>)');
    }
    // comparing digests keeps the comparison constant-time whatever the lengths
    if (!this.expected || !timingSafeEqual(digest(token), this.expected)) {
      throw new UnauthorizedException('admin token is not valid');
    }
    return true;
  }

  /** the admin token check alone (the login endpoint's) */
  tokenIsValid(token: string): boolean {
    return this.expected !== null && timingSafeEqual(digest(token), this.expected);
  }
}
