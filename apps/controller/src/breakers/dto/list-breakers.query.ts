import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class ListBreakersQuery {
  @ApiPropertyOptional({ description: "one of the key's groups; all of them when absent" })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  group?: string;
}
