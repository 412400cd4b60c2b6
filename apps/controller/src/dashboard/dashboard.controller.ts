import {
  Controller,
  Get,
  Param,
  Query,
  Req,
  Res,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ControlEvent } from '@recloser/control';
import { AdminGuard } from '../auth/admin.guard.js';
import { identifierParam } from '../common/input-rules.js';
import { DashboardService, EXTRAS_MAX, type InstanceRowView } from './dashboard.service.js';
import { ExtrasQuery, InstancesQuery } from './dto/dashboard.dto.js';
import { LiveEvents } from './live-events.js';
import type { TimelinePoint } from './timeline.js';
import { breakerIdParam } from '../breakers/breaker-id.pipe.js';

const KEEPALIVE_MS = 15_000;

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class DashboardController {
  constructor(
    private readonly dashboard: DashboardService,
    private readonly live: LiveEvents,
  ) {}

  @Get('events')
  @ApiOperation({
    summary: 'Server-sent events: every event of the event seam as it is relayed (the dashboard live view)',
  })
  events(@Req() req: FastifyRequest, @Res() reply: FastifyReply): void {
    const raw = reply.raw;
    let keepalive: NodeJS.Timeout | null = null;
    const send = (e: ControlEvent) =>
      void raw.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    const stop = this.live.listen(send, () => {
      end();
      raw.end();
    });
    if (!stop) throw new ServiceUnavailableException('too many live dashboards on this replica');
    const end = () => {
      if (keepalive) clearInterval(keepalive);
      keepalive = null;
      stop();
    };
    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(': live\n\n');
    keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
    req.raw.on('close', end);
  }

  @Get('breakers/:id/timeline')
  @ApiOperation({ summary: "A breaker's timeline: the figures of its transitions, then the live ones now" })
  timeline(
    @Param('id', breakerIdParam) id: string,
  ): Promise<{ points: TimelinePoint[]; steps: number[]; classes: string[] }> {
    return this.dashboard.timeline(id);
  }

  @Get('breakers/:id/pool')
  @ApiOperation({
    summary: 'The pool a breaker draws on, as resolved (the defaults when none is configured)',
  })
  pool(@Param('id', breakerIdParam) id: string): ReturnType<DashboardService['poolOf']> {
    return this.dashboard.poolOf(id);
  }

  @Get('breakers/:id/instances')
  @ApiOperation({
    summary:
      "A breaker's instances, filtered and paged on the server (state, region, prefix, live, isolated)",
  })
  instances(
    @Param('id', breakerIdParam) id: string,
    @Query() q: InstancesQuery,
  ): Promise<{ instances: InstanceRowView[]; next: string | null; total: number }> {
    return this.dashboard.instances(id, q);
  }

  @Get('dashboard/extras')
  @ApiOperation({
    summary:
      'Probe tokens in flight per pool (`pools`: comma-separated ids), isolated instances per breaker, shifts under way per source region breaker',
  })
  extras(@Query() q: ExtrasQuery): ReturnType<DashboardService['extras']> {
    const pools = (q.pools ?? '')
      .split(',')
      .filter((p) => p.length > 0)
      .slice(0, EXTRAS_MAX);
    return this.dashboard.extras(pools);
  }

  @Get('groups/:group/quorum')
  @ApiOperation({ summary: "A group's quorum policy (the default when never set)" })
  quorum(
    @Param('group', identifierParam('group')) group: string,
  ): Promise<{ fraction: number; minOpen: number }> {
    return this.dashboard.quorumOf(group);
  }
}
