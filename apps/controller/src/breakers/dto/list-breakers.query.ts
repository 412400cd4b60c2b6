import { ApiPropertyOptional } from '@nestjs/swagger';
import { IDENTIFIER_MAX } from '@recloser/core';
import { IsOptional, IsString, Length } from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';
import { PageQuery } from '../../common/paging.js';

export class ListBreakersQuery extends PageQuery {
  @ApiPropertyOptional({ description: "one of the key's groups; all of them when absent" })
  @IsOptional()
  @IsIdentifier()
  @Length(1, IDENTIFIER_MAX)
  @IsString()
  group?: string;
}
