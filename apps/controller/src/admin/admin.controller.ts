import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { type BreakerDetail, type Overview, AdminService } from './admin.service.js';
import { ActionResultDto, BreakerDetailDto, OverviewDto } from './dto/admin-views.dto.js';
import { BreakerActionDto } from './dto/breaker-action.dto.js';
import { PageQuery } from '../common/paging.js';
import { breakerIdParam } from '../breakers/breaker-id.pipe.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('overview')
  @ApiOkResponse({ type: OverviewDto })
  @ApiOperation({
    summary: 'Pools, breakers, live/open counts, states',
    description: 'Totals cover every breaker; `breakers` is paged by `limit` and `cursor` (see `next`).',
  })
  overview(@Query() page: PageQuery): Promise<Overview> {
    return this.admin.overview(page);
  }

  @Get('breakers/:id')
  @ApiOkResponse({ type: BreakerDetailDto })
  @ApiOperation({
    summary: 'One breaker: instances and their verdicts, isolated instances, recent transitions',
    description: '`instances` is paged by `limit` and `cursor` (see `next`).',
  })
  breaker(@Param('id', breakerIdParam) id: string, @Query() page: PageQuery): Promise<BreakerDetail> {
    return this.admin.breaker(id, page);
  }

  @Post('breakers/:id/actions')
  @HttpCode(200)
  @ApiOkResponse({ type: ActionResultDto })
  @ApiOperation({
    summary: 'force_open | force_close | pause_ramp | resume_ramp, recorded in the transition log',
  })
  act(
    @Param('id', breakerIdParam) id: string,
    @Body() dto: BreakerActionDto,
  ): ReturnType<AdminService['act']> {
    return this.admin.act(id, dto.action, dto.reason);
  }
}
