import { Body, Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MAX_LEDGER_EVENTS_PER_REQUEST } from '@recloser/core';
import { FleetKeyGuard } from '../auth/fleet-key.guard.js';
import { Fleet, type FleetPrincipal } from '../auth/fleet-principal.js';
import { LedgerEventsAcceptedDto, LedgerEventsDto } from './dto/ledger-events.dto.js';
import { ListRefundsQuery, RefundPageDto } from './dto/list-refunds.query.js';
import { LedgerService } from './ledger.service.js';

@ApiTags('fleet')
@ApiBearerAuth()
@UseGuards(FleetKeyGuard)
@Controller('v1/ledger')
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @Post('events')
  @HttpCode(200)
  @ApiOkResponse({ type: LedgerEventsAcceptedDto })
  @ApiOperation({
    summary: 'Report work-unit attempts and reclaims (idempotent by eventId)',
    description: `At most ${MAX_LEDGER_EVENTS_PER_REQUEST} events per request. A replayed eventId is counted in \`duplicates\` and changes nothing.`,
  })
  record(@Fleet() principal: FleetPrincipal, @Body() dto: LedgerEventsDto): Promise<LedgerEventsAcceptedDto> {
    return this.ledger.record(principal, dto);
  }

  @Get('refunds')
  @ApiOkResponse({ type: RefundPageDto })
  @ApiOperation({
    summary: "Refunds issued for the group's events, in issue order after the cursor `after`",
    description:
      'Each event is refunded at most once, ever. Persist `next` and pass it as `after` to resume.',
  })
  refunds(@Fleet() principal: FleetPrincipal, @Query() query: ListRefundsQuery): Promise<RefundPageDto> {
    return this.ledger.refunds(principal, query);
  }
}
