import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { REPORTED_STATES, type ReportedState } from '@recloser/core';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { IsFreeText, IsIdentifier } from '../../common/input-rules.js';
import { SetQuorumDto } from '../../groups/dto/set-quorum.dto.js';
import { PageQuery } from '../../common/paging.js';

export class LoginDto {
  @ApiProperty({ description: 'the admin token (RECLOSER_ADMIN_TOKEN)' })
  @Length(1, 1024)
  @IsString()
  token: string;
}

export class InstancesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: REPORTED_STATES })
  @IsOptional()
  @IsIn(REPORTED_STATES, { message: `state must be one of ${REPORTED_STATES.join(', ')}` })
  state?: ReportedState;

  @ApiPropertyOptional()
  @IsOptional()
  @IsIdentifier()
  region?: string;

  @ApiPropertyOptional({ description: 'instance ids starting with this' })
  @IsOptional()
  @IsIdentifier()
  prefix?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only instances with a fresh heartbeat' })
  @IsOptional()
  @IsIn(['true', 'false'])
  live?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only isolated instances (bad nodes)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  isolated?: 'true' | 'false';
}

export class ExtrasQuery {
  @ApiPropertyOptional({ description: 'pool ids, comma-separated' })
  @IsOptional()
  @Length(0, 64 * 1024)
  @IsString()
  pools?: string;
}

export class PoolChangeDto {
  @ApiProperty({ description: 'the pool body of PUT /v1/admin/pools/{id}' })
  @IsObject({ message: 'pool must be an object' })
  pool: Record<string, unknown>;

  @ApiProperty({ description: 'why; recorded in the operator log' })
  @IsFreeText(500)
  @Length(1, 500)
  @IsString()
  reason: string;
}

export class QuorumChangeDto extends SetQuorumDto {
  @ApiProperty({ description: 'why; recorded in the operator log' })
  @IsFreeText(500)
  @Length(1, 500)
  @IsString()
  reason: string;
}

export class OperatorLogQuery {
  @ApiPropertyOptional({ default: 100, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @Max(1000)
  @Min(1)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'a pool id or a group' })
  @IsOptional()
  @Length(1, 256)
  @IsString()
  target?: string;
}
