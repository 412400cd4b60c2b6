import {
  Body,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard.js';
import { type BreakerDetail, type Overview, AdminService } from './admin.service.js';
import { ActionResultDto, BreakerDetailDto, OverviewDto } from './dto/admin-views.dto.js';
import { BreakerActionDto } from './dto/breaker-action.dto.js';

const breakerId = new ParseUUIDPipe({ exceptionFactory: () => new NotFoundException('breaker not found') });

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('overview')
  @ApiOkResponse({ type: OverviewDto })
  @ApiOperation({ summary: 'Pools, breakers, live/open counts, states' })
  overview(): Promise<Overview> {
    return this.admin.overview();
  }

  @Get('breakers/:id')
  @ApiOkResponse({ type: BreakerDetailDto })
  @ApiOperation({
    summary: 'One breaker: instances and their verdicts, isolated instances, recent transitions',
  })
  breaker(@Param('id', breakerId) id: string): Promise<BreakerDetail> {
    return this.admin.breaker(id);
  }

  @Post('breakers/:id/actions')
  @HttpCode(200)
  @ApiOkResponse({ type: ActionResultDto })
  @ApiOperation({
    summary: 'force_open | force_close | pause_ramp | resume_ramp, recorded in the transition log',
  })
  act(@Param('id', breakerId) id: string, @Body() dto: BreakerActionDto): ReturnType<AdminService['act']> {
    return this.admin.act(id, dto.action, dto.reason);
  }
}
