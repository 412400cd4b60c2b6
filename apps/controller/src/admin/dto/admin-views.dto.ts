// OpenAPI shapes of the admin answers (documentation only: the services return plain objects).
import { ApiProperty } from '@nestjs/swagger';
import { BreakerSummaryDto } from '../../breakers/dto/breaker-summary.dto.js';
import { ChainCheckDto, TransitionDto } from '../../transitions/dto/transition.dto.js';

export class QuorumPolicyDto {
  @ApiProperty({ example: 0.5 }) fraction: number;
  @ApiProperty({ example: 2 }) minOpen: number;
}

export class BreakerWithCountsDto extends BreakerSummaryDto {
  @ApiProperty({ description: 'live instances reporting on this breaker' }) live: number;
  @ApiProperty({ description: 'of which locally open' }) open: number;
}

export class OverviewTotalsDto {
  @ApiProperty() breakers: number;
  @ApiProperty({ example: { closed: 3, open: 1, probing: 0, ramping: 0 } }) byState: Record<string, number>;
  @ApiProperty() liveInstances: number;
  @ApiProperty() openInstances: number;
}

export class OverviewPoolDto {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'false for the default pool of a dependency nobody configured' })
  configured: boolean;
  @ApiProperty({ type: [String] }) dependencies: string[];
  @ApiProperty() breakers: number;
}

export class OverviewGroupDto {
  @ApiProperty() group: string;
  @ApiProperty({ type: QuorumPolicyDto }) quorum: QuorumPolicyDto;
  @ApiProperty() firstSeenAt: string;
}

export class OverviewDto {
  @ApiProperty() serverTime: string;
  @ApiProperty({ type: OverviewTotalsDto }) totals: OverviewTotalsDto;
  @ApiProperty({ type: [OverviewPoolDto] }) pools: OverviewPoolDto[];
  @ApiProperty({ type: [OverviewGroupDto] }) groups: OverviewGroupDto[];
  @ApiProperty({ type: [BreakerWithCountsDto] }) breakers: BreakerWithCountsDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'cursor of the next page of `breakers` (pass it as `cursor`); null on the last page',
  })
  next: string | null;
}

export class InstanceVerdictDto {
  @ApiProperty() instanceId: string;
  @ApiProperty() region: string;
  @ApiProperty({ enum: ['closed', 'open', 'half_open', 'paused', 'fallback'] }) state: string;
  @ApiProperty({ description: 'heartbeat younger than the TTL' }) live: boolean;
  @ApiProperty() lastSeenAt: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "controller's first sight of the current open run",
  })
  openSince: string | null;
  @ApiProperty({ type: String, nullable: true, description: "the instance's own claim" }) reportedSince:
    string | null;
  @ApiProperty({ type: Object }) evidence: unknown;
  @ApiProperty({ type: Object, nullable: true }) demand: Record<string, number> | null;
  @ApiProperty({
    type: Object,
    required: false,
    description: 'requests/s this instance moved to each other region over its last window (issue 14)',
  })
  routed?: Record<string, number>;
}

export class IsolatedInstanceDto {
  @ApiProperty() instanceId: string;
  @ApiProperty() openForMs: number;
}

export class BreakerDetailDto {
  @ApiProperty({ type: BreakerSummaryDto }) breaker: BreakerSummaryDto;
  @ApiProperty({ type: Object, description: "core's GlobalBreakerState" }) globalState: unknown;
  @ApiProperty({ type: QuorumPolicyDto }) quorumPolicy: QuorumPolicyDto;
  @ApiProperty() isolationAfterMs: number;
  @ApiProperty({ type: [InstanceVerdictDto] }) instances: InstanceVerdictDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'cursor of the next page of `instances` (pass it as `cursor`); null on the last page',
  })
  next: string | null;
  @ApiProperty({ type: [IsolatedInstanceDto], description: 'locally open while the group stays closed' })
  isolated: IsolatedInstanceDto[];
  @ApiProperty({ type: [TransitionDto], description: 'newest first' }) transitions: TransitionDto[];
  @ApiProperty({ type: ChainCheckDto }) chain: ChainCheckDto;
}

export class ActionResultDto {
  @ApiProperty({ type: BreakerSummaryDto }) breaker: BreakerSummaryDto;
  @ApiProperty({ type: [TransitionDto] }) transitions: TransitionDto[];
}
