import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DAY_MS, MAX_COUNT, type FallbackReport, type TrafficClass } from '@recloser/core';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';
import { IsDemandMap } from './demand-map.validator.js';

// Decorators run bottom-up and validation stops at a field's first error: the type check sits last.
const count = { allowNaN: false, allowInfinity: false } as const;

/** What an instance did in FALLBACK, reported on its heartbeats once control returned (core FallbackReport). */
export class FallbackReportDto implements FallbackReport {
  @ApiProperty({ description: 'how long the spell lasted, ms (at most 30 days)' })
  @Max(30 * DAY_MS)
  @Min(0)
  @IsNumber(count)
  durationMs: number;

  @ApiProperty() @Max(MAX_COUNT) @Min(0) @IsNumber(count) attempts: number;
  @ApiProperty() @Max(MAX_COUNT) @Min(0) @IsNumber(count) probes: number;
  @ApiProperty() @Max(MAX_COUNT) @Min(0) @IsNumber(count) probeSuccesses: number;

  @ApiPropertyOptional({
    description: 'the allowance held now, requests/s per class',
    example: { standard: 0.4 },
  })
  @IsOptional()
  @IsDemandMap()
  holding?: Record<TrafficClass, number>;
}

/** The DTO as core's wire type. */
export function toFallbackReport(dto: FallbackReportDto): FallbackReport {
  const out: FallbackReport = {
    durationMs: dto.durationMs,
    attempts: dto.attempts,
    probes: dto.probes,
    probeSuccesses: dto.probeSuccesses,
  };
  if (dto.holding !== undefined) out.holding = { ...dto.holding };
  return out;
}
