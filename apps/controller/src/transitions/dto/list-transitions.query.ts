import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { PageQuery } from '../../common/paging.js';

export class ListTransitionsQuery extends PageQuery {
  @ApiPropertyOptional({ description: "one breaker's chain (newest first); all breakers when absent" })
  @IsOptional()
  @IsUUID('all', { message: 'breakerId must be a UUID' })
  breakerId?: string;
}
