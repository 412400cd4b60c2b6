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

export class HealthFiguresDto {
  @ApiProperty({ description: 'live instances counted' }) live: number;
  @ApiProperty({ description: 'attempts in their last heartbeat windows' }) attempts: number;
  @ApiProperty({ description: 'failed share of those attempts (overload, network, slow, 429), 0..1' })
  errorRate: number;
  @ApiProperty({ description: 'share of attempts throttled (429) or served beyond the slow threshold, 0..1' })
  saturation: number;
}

export class RegionHealthFiguresDto extends HealthFiguresDto {
  @ApiProperty({ description: 'the region' }) name: string;
}

export class HealthSignatureDto {
  @ApiProperty({
    type: RegionHealthFiguresDto,
    nullable: true,
    description: "the breaker's region (null for the group's own breaker)",
  })
  region: RegionHealthFiguresDto | null;
  @ApiProperty({ type: HealthFiguresDto, description: 'every live instance reporting on the breaker' })
  pool: HealthFiguresDto;
}

export class RegionVerdictDto {
  @ApiProperty() region: string;
  @ApiProperty({
    enum: ['closed', 'region_open', 'open', 'shift_throttled'],
    description:
      'region_open: this region reached its quorum while the rest of the pool is healthy; open: the pool reached quorum',
  })
  verdict: 'closed' | 'region_open' | 'open' | 'shift_throttled';
  @ApiProperty({ type: QuorumFiguresDto, description: "the region's own quorum figures" })
  quorum: QuorumFiguresDto;
  @ApiProperty() errorRate: number;
  @ApiProperty() saturation: number;
  @ApiProperty({
    required: false,
    description: 'requests/s moved into this region from others now (live heartbeats’ routed rates)',
  })
  routedInRate?: number;
  @ApiProperty({ required: false, description: 'requests/s the shift plans in force allow into this region' })
  shiftAllowedRate?: number;
}

export class ShiftReceiverDto {
  @ApiProperty() region: string;
  @ApiProperty({ description: 'requests/s the plan allows into it now' }) allowedPerSec: number;
  @ApiProperty({ description: 'requests/s moved into it now, from every source' }) movedPerSec: number;
  @ApiProperty({ description: 'receiving faster than the plans allow (verdict shift_throttled)' })
  throttled: boolean;
}

export class ShiftDto {
  @ApiProperty({ description: 'the region whose traffic moves' }) source: string;
  @ApiProperty({ description: "the source region's breaker" }) breakerId: string;
  @ApiProperty({ enum: ['idle', 'shifting', 'frozen', 'reversing'] })
  mode: 'idle' | 'shifting' | 'frozen' | 'reversing';
  @ApiProperty() reason: string;
  @ApiProperty({ description: 'requests/s the source cannot serve' }) deficitPerSec: number;
  @ApiProperty({ type: [ShiftReceiverDto] }) receivers: ShiftReceiverDto[];
  @ApiProperty({ type: String, nullable: true }) expiresAt: string | null;
  @ApiProperty() updatedAt: string;
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
  @ApiProperty({
    type: HealthSignatureDto,
    required: false,
    description: 'error rate and saturation of the breaker’s region and of the pool-wide picture',
  })
  health?: HealthSignatureDto;
  @ApiProperty({
    type: [RegionVerdictDto],
    required: false,
    description: 'per region: its quorum from live heartbeat rows and the regional verdict',
  })
  regions?: RegionVerdictDto[];
  @ApiProperty({
    type: [ShiftDto],
    required: false,
    description: "a group's breaker: each region's shift plan in force and the traffic it moves (issue 14)",
  })
  shifts?: ShiftDto[];
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
