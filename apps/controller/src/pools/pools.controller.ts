import { Body, Controller, Get, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { PageQuery } from '../common/paging.js';
import { AdminGuard } from '../auth/admin.guard.js';
import { PoolsService, type PoolView } from './pools.service.js';

// OpenAPI shape only: a pool's fields are docs/api.md's PUT body plus its timestamps
export class PoolListDto {
  @ApiProperty({ type: [Object], description: 'configured pools (the PUT body, createdAt, updatedAt)' })
  pools: PoolView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'cursor of the next page (pass it as `cursor`); null on the last page',
  })
  next: string | null;
}

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
  @ApiOkResponse({ type: PoolListDto })
  @ApiOperation({
    summary: 'Every configured pool, by id',
    description: "Paged by `limit` (default 100, at most 1,000) and `cursor` (the previous page's `next`).",
  })
  async list(@Query() page: PageQuery): Promise<{ pools: PoolView[]; next: string | null }> {
    const { rows, next } = await this.pools.page(page);
    return { pools: rows, next };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One configured pool (404 when not configured)' })
  get(@Param('id') id: string): Promise<PoolView> {
    return this.pools.get(id);
  }
}
