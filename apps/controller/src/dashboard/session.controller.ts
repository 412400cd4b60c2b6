import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Post,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminGuard } from '../auth/admin.guard.js';
import { AdminSessions, cookieValue, SESSION_COOKIE } from '../auth/admin-sessions.js';
import { LoginDto } from './dto/dashboard.dto.js';

/** The dashboard's login: the admin token buys an HttpOnly, SameSite=Strict session cookie; logout ends it. */
@ApiTags('admin')
@Controller('v1/admin/session')
export class SessionController {
  constructor(
    private readonly guard: AdminGuard,
    private readonly sessions: AdminSessions,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Log in with the admin token: sets the session cookie' })
  async login(
    @Body() dto: LoginDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ authenticated: true }> {
    if (!this.guard.tokenIsValid(dto.token)) throw new UnauthorizedException('admin token is not valid');
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
