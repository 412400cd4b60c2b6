import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FleetKeyGuard } from '../auth/fleet-key.guard.js';
import { HeartbeatDto } from './dto/heartbeat.dto.js';
import { HeartbeatResponseDto } from './dto/heartbeat-response.dto.js';
import { HeartbeatsService } from './heartbeats.service.js';

@ApiTags('fleet')
@ApiBearerAuth()
@UseGuards(FleetKeyGuard)
@Controller('v1/heartbeats')
export class HeartbeatsController {
  constructor(private readonly heartbeats: HeartbeatsService) {}

  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: HeartbeatResponseDto })
  @ApiOperation({
    summary: 'Presence and local verdicts of one instance; answers with the plan until the next one',
  })
  record(@Body() dto: HeartbeatDto): Promise<HeartbeatResponseDto> {
    return this.heartbeats.record(dto);
  }
}
