import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DAY_MS, EVIDENCE_CLASSES } from '@recloser/core';
import { IsIn, IsNumber, IsOptional, Max, Min } from 'class-validator';

/** A probe ends in success or in one of the classes a verdict's evidence counts (never cancelled). */
export const PROBE_OUTCOMES = ['success', ...EVIDENCE_CLASSES] as const;
export type ProbeOutcome = (typeof PROBE_OUTCOMES)[number];

export class ProbeResultDto {
  @ApiProperty({ enum: PROBE_OUTCOMES })
  @IsIn(PROBE_OUTCOMES, { message: `outcome must be one of ${PROBE_OUTCOMES.join(', ')}` })
  outcome: ProbeOutcome;

  @ApiProperty({ example: 180 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(DAY_MS)
  latencyMs: number;

  @ApiPropertyOptional({ example: 90 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(DAY_MS)
  ttftMs?: number;

  @ApiPropertyOptional({ description: "the provider's Retry-After, when it sent one" })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(DAY_MS)
  retryAfterMs?: number;
}

export class ProbeResultAcceptedDto {
  @ApiProperty({ enum: ['closed', 'open', 'probing', 'ramping'] })
  state: string;

  @ApiProperty()
  epoch: number;
}
