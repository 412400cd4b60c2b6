import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';

export class ListTransitionsQuery {
  @ApiPropertyOptional({ description: "one breaker's chain (newest first); all breakers when absent" })
  @IsOptional()
  @IsUUID('all', { message: 'breakerId must be a UUID' })
  breakerId?: string;

  @ApiPropertyOptional({ default: 100, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @Max(1000)
  @Min(1)
  @IsInt({ message: 'limit must be an integer in [1, 1000]' })
  limit?: number;
}
