import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FleetKeyGuard } from '../auth/fleet-key.guard.js';
import { Fleet, type FleetPrincipal } from '../auth/fleet-principal.js';
import { BreakersService } from './breakers.service.js';
import { BreakerListDto } from './dto/breaker-summary.dto.js';
import { ListBreakersQuery } from './dto/list-breakers.query.js';

@ApiTags('fleet')
@ApiBearerAuth()
@UseGuards(FleetKeyGuard)
@Controller('v1/breakers')
export class BreakersController {
  constructor(private readonly breakers: BreakersService) {}

  @Get()
  @ApiOkResponse({ type: BreakerListDto })
  @ApiOperation({
    summary: "Global state of each breaker the key can see (403 for a group outside the key's)",
    description: "Paged by `limit` (default 100, at most 1,000) and `cursor` (the previous page's `next`).",
  })
  async list(@Query() query: ListBreakersQuery, @Fleet() principal: FleetPrincipal): Promise<BreakerListDto> {
    const { group, ...page } = query;
    const { rows, next } = await this.breakers.list(group ? [group] : principal.groups, page);
    return { breakers: rows, next };
  }
}
