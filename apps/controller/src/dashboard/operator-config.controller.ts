import { Body, Controller, Get, Inject, Param, Put, Query, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Clock } from '@recloser/core';
import { DataSource } from 'typeorm';
import { AdminGuard } from '../auth/admin.guard.js';
import { identifierParam } from '../common/input-rules.js';
import { PAGE_DEFAULT } from '../common/paging.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService, type PoolView } from '../pools/pools.service.js';
import { OperatorLogQuery, PoolChangeDto, QuorumChangeDto } from './dto/dashboard.dto.js';

export interface OperatorLogEntry {
  seq: number;
  at: string;
  kind: 'pool' | 'quorum';
  target: string;
  reason: string;
  change: unknown;
}

/**
 * Configuration changes from the dashboard, each with a reason recorded in operator_log: the same
 * PoolsService and FleetGroupsService as PUT /v1/admin/pools/{id} and /groups/{group}/quorum.
 */
@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/dashboard')
export class OperatorConfigController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly pools: PoolsService,
    private readonly groups: FleetGroupsService,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  @Put('pools/:id')
  @ApiOperation({ summary: 'PUT /v1/admin/pools/{id} with a reason, recorded in the operator log' })
  async putPool(@Param('id') id: string, @Body() dto: PoolChangeDto): Promise<PoolView> {
    const view = await this.pools.put(id, dto.pool);
    await this.record('pool', id, dto.reason, dto.pool);
    return view;
  }

  @Put('groups/:group/quorum')
  @ApiOperation({ summary: "A group's quorum with a reason, recorded in the operator log" })
  async putQuorum(
    @Param('group', identifierParam('group')) group: string,
    @Body() dto: QuorumChangeDto,
  ): Promise<{ group: string; fraction: number; minOpen: number }> {
    const quorum = { fraction: dto.fraction, minOpen: dto.minOpen };
    const view = await this.groups.setQuorum(group, quorum, this.clock.now());
    await this.record('quorum', group, dto.reason, quorum);
    return { group: view.group, ...view.quorum };
  }

  @Get('operator-log')
  @ApiOperation({ summary: 'Configuration changes made from the dashboard, newest first' })
  async log(@Query() q: OperatorLogQuery): Promise<{ entries: OperatorLogEntry[] }> {
    const rows = (await this.db.query(
      `SELECT seq::float8 AS seq, at, kind, target, reason, change FROM operator_log
        ${q.target ? 'WHERE target = $2' : ''} ORDER BY seq DESC LIMIT $1`,
      q.target ? [q.limit ?? PAGE_DEFAULT, q.target] : [q.limit ?? PAGE_DEFAULT],
    )) as (Omit<OperatorLogEntry, 'at'> & { at: Date })[];
    return { entries: rows.map((r) => ({ ...r, at: r.at.toISOString() })) };
  }

  private async record(
    kind: 'pool' | 'quorum',
    target: string,
    reason: string,
    change: unknown,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO operator_log (kind, target, reason, change) VALUES ($1, $2, $3, $4::jsonb)`,
      [kind, target, reason, JSON.stringify(change)],
    );
  }
}
