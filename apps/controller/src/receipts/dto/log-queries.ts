import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

const MAX_SIZE = Number.MAX_SAFE_INTEGER;

export class BundleQuery {
  @ApiPropertyOptional({
    description: 'also prove consistency from this earlier tree size (your last checkpoint)',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(MAX_SIZE, { message: 'since must be a tree size (an integer ≥ 0)' })
  @Min(0, { message: 'since must be a tree size (an integer ≥ 0)' })
  @IsInt({ message: 'since must be a tree size (an integer ≥ 0)' })
  since?: number;
}

export class ConsistencyQuery {
  @ApiProperty({ description: 'the earlier tree size' })
  @Type(() => Number)
  @Max(MAX_SIZE, { message: 'from must be a tree size (an integer ≥ 0)' })
  @Min(0, { message: 'from must be a tree size (an integer ≥ 0)' })
  @IsInt({ message: 'from must be a tree size (an integer ≥ 0)' })
  from: number;

  @ApiPropertyOptional({ description: 'the later tree size (the current one when absent)' })
  @IsOptional()
  @Type(() => Number)
  @Max(MAX_SIZE, { message: 'to must be a tree size (an integer ≥ 0)' })
  @Min(0, { message: 'to must be a tree size (an integer ≥ 0)' })
  @IsInt({ message: 'to must be a tree size (an integer ≥ 0)' })
  to?: number;
}
