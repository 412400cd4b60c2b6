import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpException,
  HttpStatus,
  Inject,
  Post,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminGuard } from '../auth/admin.guard.js';
import { AdminSessions, cookieValue, SESSION_COOKIE } from '../auth/admin-sessions.js';
import { LoginDto } from './dto/dashboard.dto.js';

const LOGIN_WINDOW_MS = 60_000;

/** The dashboard's login: the admin token buys an HttpOnly, SameSite=Strict session cookie; logout ends it. */
@ApiTags('admin')
@Controller('v1/admin/session')
export class SessionController {
  constructor(
    private readonly guard: AdminGuard,
    private readonly sessions: AdminSessions,
    private readonly config: ControllerConfig,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Log in with the admin token: sets the session cookie' })
  async login(
    @Body() dto: LoginDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ authenticated: true }> {
    // the token travels in the body here, not as a bearer, so the edge's failure budget is kept here:
    // RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN failed logins per address per minute, then 429
    const key = `${this.config.redisPrefix}:login-failures:${req.ip}`;
    const failures = Number((await this.redis.get(key).catch(() => null)) ?? 0);
    if (failures >= this.config.rateLimitAuthFailuresPerMin) {
      const ttl = Math.max(1, await this.redis.pttl(key).catch(() => LOGIN_WINDOW_MS));
      void reply.header('retry-after', String(Math.ceil(ttl / 1000)));
      throw new HttpException(
        { message: 'too many failed logins from this address; retry later', retryAfterMs: ttl },
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    if (!this.guard.tokenIsValid(dto.token)) {
      await this.redis
        .multi()
        .incr(key)
        .pexpire(key, LOGIN_WINDOW_MS, 'NX')
        .exec()
        .catch(() => undefined);
      throw new UnauthorizedException('admin token is not valid');
    }
    const id = await this.sessions.create();
    void reply.header('set-cookie', AdminSessions.cookie(id, req.protocol === 'https'));
    return { authenticated: true };
  }

  @Get()
  @UseGuards(AdminGuard)
  @ApiOperation({ summary: 'Whether the caller is logged in (401 if not)' })
  whoami(): { authenticated: true } {
    return { authenticated: true };
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Log out: ends the session and clears the cookie' })
  async logout(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.sessions.end(cookieValue(req.headers.cookie, SESSION_COOKIE));
    void reply.header('set-cookie', AdminSessions.cookie(null, req.protocol === 'https'));
  }
}
