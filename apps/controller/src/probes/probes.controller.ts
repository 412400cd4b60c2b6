import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Fleet, type FleetPrincipal } from '../auth/fleet-principal.js';
import { FleetKeyGuard } from '../auth/fleet-key.guard.js';
import { LeaseProbeDto, ProbeLeaseDto } from './dto/lease-probe.dto.js';
import { ProbeResultAcceptedDto, ProbeResultDto } from './dto/probe-result.dto.js';
import { ProbesService } from './probes.service.js';

@ApiTags('fleet')
@ApiBearerAuth()
@UseGuards(FleetKeyGuard)
@Controller('v1/probes')
export class ProbesController {
  constructor(private readonly probes: ProbesService) {}

  @Post('lease')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Lease a probe token from the pool budget (only while the breaker is probing)',
    description:
      '201 with a token; 429 + Retry-After when the budget is used up or the breaker is still open and ' +
      'cooling down; 409 when the breaker is closed or ramping; 404 for an unknown breaker.',
  })
  @ApiResponse({ status: 201, type: ProbeLeaseDto })
  lease(@Body() dto: LeaseProbeDto): Promise<ProbeLeaseDto> {
    return this.probes.lease(dto);
  }

  @Post(':token/result')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report a probe outcome; releases the token (409 when it expired or was fenced off)',
  })
  @ApiResponse({ status: 200, type: ProbeResultAcceptedDto })
  result(
    @Fleet() principal: FleetPrincipal,
    @Param('token') token: string,
    @Body() dto: ProbeResultDto,
  ): Promise<ProbeResultAcceptedDto> {
    return this.probes.reportResult(principal, token, dto);
  }
}
