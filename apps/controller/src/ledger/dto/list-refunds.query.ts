import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IDENTIFIER_MAX } from '@recloser/core';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';
import { PAGE_DEFAULT, PAGE_MAX } from '../../common/paging.js';

export class ListRefundsQuery {
  @ApiProperty({ example: 'orders-consumer' })
  @IsIdentifier()
  @Length(1, IDENTIFIER_MAX)
  @IsString()
  group: string;

  @ApiPropertyOptional({
    description: "the previous page's `next` (persist it to resume); the first refund when absent",
  })
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'after is not a cursor this list returned' })
  @IsString({ message: 'after is not a cursor this list returned' })
  after?: string;

  @ApiPropertyOptional({ default: PAGE_DEFAULT, minimum: 1, maximum: PAGE_MAX })
  @IsOptional()
  @Type(() => Number)
  @Max(PAGE_MAX, { message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  @Min(1, { message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  @IsInt({ message: `limit must be an integer in [1, ${PAGE_MAX}]` })
  limit?: number;
}

export class RefundDto {
  @ApiProperty() refundId: string;
  @ApiProperty() workId: string;
  @ApiProperty({ description: 'attempts to take back from the unit' }) attempts: number;
  @ApiProperty({ description: 'reclaims to take back from the unit' }) reclaims: number;
  @ApiProperty() reason: string;
  @ApiProperty({ description: 'the event refunded' }) eventId: string;
  @ApiProperty() instanceId: string;
  @ApiProperty() dependency: string;
  @ApiProperty({ description: 'when the refund was issued' }) at: string;
}

export class RefundPageDto {
  @ApiProperty({ type: [RefundDto] })
  refunds: RefundDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'pass as `after` for the refunds issued after these (null before the first refund)',
  })
  next: string | null;
}
