import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { ListTransitionsQuery } from './dto/list-transitions.query.js';
import { TransitionLogDto } from './dto/transition.dto.js';
import type { ChainCheck } from './transition-chain.js';
import { type TransitionView, TransitionsService } from './transitions.service.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin/transitions')
export class TransitionsController {
  constructor(private readonly transitions: TransitionsService) {}

  @Get()
  @ApiOkResponse({ type: TransitionLogDto })
  @ApiOperation({
    summary: 'The hash-chained transition log; with breakerId, also whether its chain verifies',
  })
  async list(
    @Query() query: ListTransitionsQuery,
  ): Promise<{ transitions: TransitionView[]; next: string | null; chain?: ChainCheck }> {
    return this.transitions.log(query.breakerId, query);
  }
}
