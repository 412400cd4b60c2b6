import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';
import { PageQuery } from '../../common/paging.js';

/**
 * `limit` as every list takes it; `after` instead of the opaque `cursor`: a refund's seq that a
 * client persists to resume, so `next` stays set on an empty page.
 */
export class ListRefundsQuery extends PickType(PageQuery, ['limit'] as const) {
  @ApiProperty({ example: 'orders-consumer' })
  @IsIdentifier()
  @IsString()
  group: string;

  @ApiPropertyOptional({
    description: "the previous page's `next` (persist it to resume); the first refund when absent",
  })
  @IsOptional()
  @Matches(/^\d{1,18}$/, { message: 'after is not a cursor this list returned' })
  @IsString({ message: 'after is not a cursor this list returned' })
  after?: string;
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
