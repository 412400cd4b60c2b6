import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DAY_MS,
  EVIDENCE_CLASSES,
  IDENTIFIER_MAX,
  MAX_COUNT,
  REPORTED_STATES,
  routedRatesProblem,
  type BreakerVerdict,
  type EvidenceClass,
  type HeartbeatRequest,
  type ReportedState,
  type TrafficClass,
} from '@recloser/core';
import { Type } from 'class-transformer';
import { DsseEnvelopeDto } from '../../receipts/dto/envelope.dto.js';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';
import { IsDemandMap } from './demand-map.validator.js';
import { FallbackReportDto, toFallbackReport } from './fallback-report.dto.js';

// Decorators run bottom-up and validation stops at a field's first error: the type check sits last.
const count = { allowNaN: false, allowInfinity: false } as const;

/** `{ region: requestsPerSecond }` by core's rule (InputRules routedRatesProblem), the field named. */
function IsRoutedRates(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isRoutedRates',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => routedRatesProblem(value) === null,
        defaultMessage: (args: ValidationArguments) => {
          const problem = routedRatesProblem(args.value) ?? '';
          return problem.startsWith('.') ? `${args.property}${problem}` : `${args.property} ${problem}`;
        },
      },
    });
}

/** Evidence counts are of the window's attempts: none may exceed them (successes, each class). */
function AtMostAttempts(): PropertyDecorator {
  const over = (value: unknown, attempts: unknown): string | null => {
    if (typeof attempts !== 'number') return null; // attempts' own check reports it
    if (typeof value === 'number') return value > attempts ? '' : null;
    if (value === null || typeof value !== 'object') return null;
    const bad = Object.entries(value).find(([, v]) => typeof v === 'number' && v > attempts);
    return bad ? `.${bad[0]}` : null;
  };
  return (target, propertyName) =>
    registerDecorator({
      name: 'atMostAttempts',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          over(value, (args.object as EvidenceDto).attempts) === null,
        defaultMessage: (args: ValidationArguments) => {
          const attempts = (args.object as EvidenceDto).attempts;
          return `${args.property}${over(args.value, attempts) ?? ''} must not exceed attempts (${attempts})`;
        },
      },
    });
}

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

  @ApiProperty({ description: 'at most attempts' })
  @AtMostAttempts()
  @Min(0)
  @Max(MAX_COUNT)
  @IsNumber(count)
  successes: number;

  @ApiPropertyOptional({
    type: EvidenceByClassDto,
    description: `counts per class (each at most attempts): ${EVIDENCE_CLASSES.join(', ')}`,
  })
  @IsOptional()
  @AtMostAttempts()
  @ValidateNested()
  @Type(() => EvidenceByClassDto)
  @IsObject()
  byClass?: EvidenceByClassDto;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Max(DAY_MS)
  @Min(0)
  @IsNumber(count)
  latencyP95Ms?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Max(DAY_MS)
  @Min(0)
  @IsNumber(count)
  ttftP95Ms?: number | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @ValidateIf((_o, v) => v !== null && v !== undefined)
  @Max(DAY_MS)
  @Min(0)
  @IsNumber(count)
  queueAgeMs?: number | null;
}

export class BreakerVerdictDto {
  @ApiProperty({ example: 'llm-provider' })
  @IsIdentifier()
  @IsString()
  dependency: string;

  @ApiProperty({ enum: REPORTED_STATES })
  @IsIn(REPORTED_STATES, { message: `state must be one of ${REPORTED_STATES.join(', ')}` })
  state: ReportedState;

  @ApiPropertyOptional({
    description: "the instance's own clock; the controller keeps its own first-seen time",
  })
  @IsOptional()
  // strict: a real calendar date (no 2026-02-30)
  @IsISO8601({ strict: true }, { message: 'since must be an ISO-8601 timestamp of a real date' })
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

  @ApiPropertyOptional({
    type: DsseEnvelopeDto,
    description:
      "this verdict signed with the instance's registered key (groups with identity optional or required)",
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => DsseEnvelopeDto)
  @IsObject({ message: 'envelope must be a DSSE envelope object' })
  envelope?: DsseEnvelopeDto;

  @ApiPropertyOptional({
    type: FallbackReportDto,
    description: 'what the instance did while the controller was unreachable',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => FallbackReportDto)
  @IsObject()
  fallback?: FallbackReportDto;

  @ApiPropertyOptional({
    description:
      'requests/s this instance moved to each other region over its last window (breaker.route under a shift plan)',
    example: { 'us-east': 1.5 },
  })
  @IsOptional()
  @IsRoutedRates()
  routed?: Record<string, number>;
}

export class HeartbeatDto {
  @ApiProperty({ example: 'worker-17', maxLength: IDENTIFIER_MAX })
  @IsIdentifier()
  @IsString()
  instanceId: string;

  @ApiProperty({ example: 'orders-consumer', maxLength: IDENTIFIER_MAX })
  @IsIdentifier()
  @IsString()
  group: string;

  @ApiProperty({ example: 'eu-west', maxLength: IDENTIFIER_MAX })
  @IsIdentifier()
  @IsString()
  region: string;

  @ApiProperty({ type: [BreakerVerdictDto] })
  @ValidateNested({ each: true })
  @Type(() => BreakerVerdictDto)
  // ValidateNested walks into a nested array without complaint: `[[]]` must not get through
  @IsObject({ each: true, message: 'breakers must hold objects (one verdict each)' })
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
      if (b.fallback !== undefined) verdict.fallback = toFallbackReport(b.fallback);
      if (b.routed !== undefined) verdict.routed = { ...b.routed };
      return verdict;
    }),
  };
}
