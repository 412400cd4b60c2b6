import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { PoolsService, type PoolView } from './pools.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/pools')
export class PoolsController {
  constructor(private readonly pools: PoolsService) {}

  @Put(':id')
  @ApiOperation({
    summary: 'Create or replace a provider capacity pool (partial bodies merge over the defaults)',
    description: '400 lists every field error; 409 when a dependency already draws on another pool.',
  })
  @ApiBody({
    schema: { type: 'object', description: 'docs/api.md: dependencies, probe, capacity, ramp, fallback' },
  })
  put(@Param('id') id: string, @Body() body: unknown): Promise<PoolView> {
    return this.pools.put(id, body);
  }

  @Get()
  @ApiOperation({ summary: 'Every configured pool' })
  async list(): Promise<{ pools: PoolView[] }> {
    return { pools: await this.pools.list() };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One configured pool (404 when not configured)' })
  get(@Param('id') id: string): Promise<PoolView> {
    return this.pools.get(id);
  }
}
