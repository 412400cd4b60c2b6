import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  LEDGER_KINDS,
  MAX_LEDGER_EVENT_COUNT,
  MAX_LEDGER_EVENTS_PER_REQUEST,
  OUTCOMES,
  type LedgerEvent,
  type LedgerKind,
  type Outcome,
} from '@recloser/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';

// Decorators run bottom-up and validation stops at a field's first error: the type check sits last.
export class LedgerEventDto {
  @ApiProperty({ description: 'unique per group: a replayed id is stored once', example: 'evt-7f3a' })
  @IsIdentifier()
  @IsString()
  eventId: string;

  @ApiProperty({ description: "the work unit's id in the fleet's queue", example: 'orders/range-42' })
  @IsIdentifier()
  @IsString()
  workId: string;

  @ApiProperty({ example: 'worker-17' })
  @IsIdentifier()
  @IsString()
  instanceId: string;

  @ApiProperty({ example: 'llm-provider' })
  @IsIdentifier()
  @IsString()
  dependency: string;

  @ApiProperty({ enum: LEDGER_KINDS })
  @IsIn(LEDGER_KINDS, { message: `kind must be one of ${LEDGER_KINDS.join(', ')}` })
  kind: LedgerKind;

  @ApiPropertyOptional({
    enum: OUTCOMES,
    description: 'the classified result of an attempt (required for attempts)',
  })
  @ValidateIf((o: LedgerEventDto) => o.kind === 'attempt' || o.outcome !== undefined)
  @IsIn(OUTCOMES, { message: `outcome must be one of ${OUTCOMES.join(', ')} (required for an attempt)` })
  outcome?: Outcome;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LEDGER_EVENT_COUNT, default: 1 })
  @IsOptional()
  @Max(MAX_LEDGER_EVENT_COUNT, { message: `count must be an integer in [1, ${MAX_LEDGER_EVENT_COUNT}]` })
  @Min(1, { message: `count must be an integer in [1, ${MAX_LEDGER_EVENT_COUNT}]` })
  @IsInt({ message: `count must be an integer in [1, ${MAX_LEDGER_EVENT_COUNT}]` })
  count?: number;

  @ApiProperty({ description: 'when it happened (ISO-8601)' })
  @IsISO8601({ strict: true }, { message: 'at must be an ISO-8601 timestamp of a real date' })
  at: string;
}

export class LedgerEventsDto {
  @ApiProperty({ example: 'orders-consumer' })
  @IsIdentifier()
  @IsString()
  group: string;

  @ApiProperty({ type: [LedgerEventDto], maxItems: MAX_LEDGER_EVENTS_PER_REQUEST })
  @ValidateNested({ each: true })
  @Type(() => LedgerEventDto)
  @IsObject({ each: true, message: 'events must hold objects (one event each)' })
  @ArrayMaxSize(MAX_LEDGER_EVENTS_PER_REQUEST, {
    message: `events must hold at most ${MAX_LEDGER_EVENTS_PER_REQUEST} entries per request (send more in several)`,
  })
  @ArrayMinSize(1, { message: 'events must hold at least one event' })
  @IsArray()
  events: LedgerEventDto[];
}

export class LedgerEventsAcceptedDto {
  @ApiProperty({ description: 'events stored now' })
  accepted: number;

  @ApiProperty({ description: 'events whose eventId was already stored (a replay): nothing changed' })
  duplicates: number;
}

/** The DTO as core's events (times parsed; the control layer checks them against its clock). */
export function toLedgerEvents(dto: LedgerEventsDto): LedgerEvent[] {
  return dto.events.map((e) => ({
    eventId: e.eventId,
    workId: e.workId,
    instanceId: e.instanceId,
    dependency: e.dependency,
    kind: e.kind,
    ...(e.outcome !== undefined ? { outcome: e.outcome } : {}),
    ...(e.count !== undefined ? { count: e.count } : {}),
    at: Date.parse(e.at),
  }));
}
