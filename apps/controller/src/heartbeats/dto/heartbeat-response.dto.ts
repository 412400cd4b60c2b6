import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { HeartbeatResponse } from '@recloser/core';
import { QuorumFiguresDto } from '../../breakers/dto/breaker-summary.dto.js';

export class PlanGlobalDto {
  @ApiProperty({ enum: ['closed', 'open', 'probing', 'ramping'] }) state:
    'closed' | 'open' | 'probing' | 'ramping';
  @ApiProperty() epoch: number;
  @ApiProperty({ type: Number, nullable: true }) step: number | null;
  @ApiProperty() steps: number;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description:
      'while RAMPING: the fraction of each admitted class’s capacity admitted now (step counts the ramp’s moves)',
  })
  level?: number | null;
  @ApiProperty({ type: QuorumFiguresDto }) quorum: QuorumFiguresDto;
}

export class BreakerPlanDto {
  @ApiProperty() dependency: string;
  @ApiProperty() breakerId: string;
  @ApiProperty({ type: PlanGlobalDto }) global: PlanGlobalDto;
  @ApiPropertyOptional({
    nullable: true,
    description:
      'this instance’s share of the ramp step, while RAMPING; `next` (issue 13), just before the admission window moves: the share from `inMs` after the heartbeat was sent',
  })
  allowance: HeartbeatResponse['breakers'][number]['allowance'];
  @ApiPropertyOptional({ nullable: true, description: 'a leased probe token, while PROBING' })
  probe: HeartbeatResponse['breakers'][number]['probe'];
  @ApiPropertyOptional({ nullable: true }) fallback: HeartbeatResponse['breakers'][number]['fallback'];
  @ApiPropertyOptional({
    nullable: true,
    description:
      'while this instance’s region breaker is not CLOSED: regions that may receive its calls and the most requests/s each (issue 14)',
  })
  shift?: HeartbeatResponse['breakers'][number]['shift'];
}

export class HeartbeatResponseDto implements HeartbeatResponse {
  @ApiProperty() serverTime: string;
  @ApiProperty() heartbeatIntervalMs: number;
  @ApiProperty() leaseTtlMs: number;
  @ApiProperty({ type: [BreakerPlanDto] }) breakers: BreakerPlanDto[];
}
