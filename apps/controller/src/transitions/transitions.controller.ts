import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { ListTransitionsQuery } from './dto/list-transitions.query.js';
import { TransitionLogDto } from './dto/transition.dto.js';
import { TransitionsService } from './transitions.service.js';

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
  list(@Query() query: ListTransitionsQuery): ReturnType<TransitionsService['log']> {
    return this.transitions.log(query.breakerId, query);
  }
}
