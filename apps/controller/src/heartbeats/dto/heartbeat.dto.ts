import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  EVIDENCE_CLASSES,
  REPORTED_STATES,
  type BreakerVerdict,
  type EvidenceClass,
  type HeartbeatRequest,
  type ReportedState,
  type TrafficClass,
} from '@recloser/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { NAME_PATTERN } from '../../auth/dto/create-fleet-key.dto.js';
import { IsDemandMap } from './demand-map.validator.js';

// Decorators run bottom-up and validation stops at a field's first error: the type check sits last.
const MAX_COUNT = 1e9;
const count = { allowNaN: false, allowInfinity: false } as const;

export class EvidenceByClassDto implements Partial<Record<EvidenceClass, number>> {
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) overload?: number;
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) network?: number;
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) rate_limited?: number;
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) auth?: number;
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) client_error?: number;
  @ApiPropertyOptional() @IsOptional() @Min(0) @Max(MAX_COUNT) @IsNumber(count) slow?: number;
}

export class EvidenceDto {
  @ApiProperty({ description: 'attempts in the last window' })
  @Min(0)
  @Max(MAX_COUNT)
  @IsNumber(count)
  attempts: number;

  @ApiProperty()
  @Min(0)
  @Max(MAX_COUNT)
  @IsNumber(count)
  successes: number;

  @ApiPropertyOptional({
    type: EvidenceByClassDto,
    description: `counts per class: ${EVIDENCE_CLASSES.join(', ')}`,
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => EvidenceByClassDto)
  @IsObject()
  byClass?: EvidenceByClassDto;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Min(0)
  @IsNumber(count)
  latencyP95Ms?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Min(0)
  @IsNumber(count)
  ttftP95Ms?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Min(0)
  @IsNumber(count)
  queueAgeMs?: number | null;
}

export class BreakerVerdictDto {
  @ApiProperty({ example: 'llm-provider' })
  @Matches(NAME_PATTERN, { message: 'dependency may hold letters, digits and . _ : @ / -' })
  @Length(1, 200)
  @IsString()
  dependency: string;

  @ApiProperty({ enum: REPORTED_STATES })
  @IsIn(REPORTED_STATES, { message: `state must be one of ${REPORTED_STATES.join(', ')}` })
  state: ReportedState;

  @ApiPropertyOptional({
    description: "the instance's own clock; the controller keeps its own first-seen time",
  })
  @IsOptional()
  @IsISO8601({}, { message: 'since must be an ISO-8601 timestamp' })
  since?: string;

  @ApiProperty({ type: EvidenceDto })
  @ValidateNested()
  @Type(() => EvidenceDto)
  @IsObject()
  evidence: EvidenceDto;

  @ApiPropertyOptional({ description: 'requests/s wanted per traffic class', example: { standard: 12.5 } })
  @IsOptional()
  @IsDemandMap()
  demand?: Record<TrafficClass, number>;
}

export class HeartbeatDto {
  @ApiProperty({ example: 'worker-17' })
  @Length(1, 200)
  @IsString()
  instanceId: string;

  @ApiProperty({ example: 'orders-consumer' })
  @Matches(NAME_PATTERN, { message: 'group may hold letters, digits and . _ : @ / -' })
  @Length(1, 200)
  @IsString()
  group: string;

  @ApiProperty({ example: 'eu-west' })
  @Length(1, 100)
  @IsString()
  region: string;

  @ApiProperty({ type: [BreakerVerdictDto] })
  @ValidateNested({ each: true })
  @Type(() => BreakerVerdictDto)
  @ArrayMaxSize(200)
  @IsArray()
  breakers: BreakerVerdictDto[];
}

/** The DTO as core's wire type (absent evidence classes count zero). */
export function toHeartbeatRequest(dto: HeartbeatDto): HeartbeatRequest {
  return {
    instanceId: dto.instanceId,
    group: dto.group,
    region: dto.region,
    breakers: dto.breakers.map((b): BreakerVerdict => {
      const byClass = Object.fromEntries(
        EVIDENCE_CLASSES.map((c) => [c, b.evidence.byClass?.[c] ?? 0]),
      ) as Record<EvidenceClass, number>;
      const verdict: BreakerVerdict = {
        dependency: b.dependency,
        state: b.state,
        evidence: {
          attempts: b.evidence.attempts,
          successes: b.evidence.successes,
          byClass,
          latencyP95Ms: b.evidence.latencyP95Ms ?? null,
          ttftP95Ms: b.evidence.ttftP95Ms ?? null,
          queueAgeMs: b.evidence.queueAgeMs ?? null,
        },
      };
      if (b.since !== undefined) verdict.since = b.since;
      if (b.demand !== undefined) verdict.demand = { ...b.demand };
      return verdict;
    }),
  };
}
