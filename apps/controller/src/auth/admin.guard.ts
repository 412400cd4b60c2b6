import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ControllerConfig } from '../config/controller-config.js';
import { bearerToken } from './bearer-token.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Admin endpoints: `Authorization: Bearer $RECLOSER_ADMIN_TOKEN`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(config: ControllerConfig) {
    this.expected = config.adminToken ? digest(config.adminToken) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    const token = bearerToken(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    if (!token) throw new UnauthorizedException('missing admin token (Authorization: Bearer <token>)');
    // comparing digests keeps the comparison constant-time whatever the lengths
    if (!this.expected || !timingSafeEqual(digest(token), this.expected)) {
      throw new UnauthorizedException('admin token is not valid');
    }
    return true;
  }
}
