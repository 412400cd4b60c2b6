import { ApiProperty } from '@nestjs/swagger';
import type { BreakerSummary, GlobalState } from '@recloser/core';

export class QuorumFiguresDto {
  @ApiProperty({ description: 'live instances locally open' })
  open: number;

  @ApiProperty({ description: 'live instances (heartbeat younger than the TTL)' })
  live: number;

  @ApiProperty({ description: 'K = max(minOpen, ceil(fraction × live))' })
  threshold: number;
}

export class BreakerSummaryDto implements BreakerSummary {
  @ApiProperty() breakerId: string;
  @ApiProperty() group: string;
  @ApiProperty() dependency: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "null for the group's own breaker; the region of a region-scoped breaker",
  })
  region: string | null;
  @ApiProperty() pool: string;
  @ApiProperty({ enum: ['closed', 'open', 'probing', 'ramping'] }) state: GlobalState;
  @ApiProperty() epoch: number;
  @ApiProperty({ type: QuorumFiguresDto }) quorum: QuorumFiguresDto;
  @ApiProperty({ type: Number, nullable: true }) step: number | null;
  @ApiProperty() steps: number;
}

export class BreakerListDto {
  @ApiProperty({ type: [BreakerSummaryDto] })
  breakers: BreakerSummaryDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'cursor of the next page (pass it as `cursor`); null on the last page',
  })
  next: string | null;
}
