import { ApiProperty } from '@nestjs/swagger';
import { OPERATOR_ACTIONS, type OperatorAction } from '@recloser/core';
import { IsIn, IsString, Length } from 'class-validator';
import { IsFreeText } from '../../common/input-rules.js';

export class BreakerActionDto {
  @ApiProperty({ enum: OPERATOR_ACTIONS })
  @IsIn(OPERATOR_ACTIONS, { message: `action must be one of ${OPERATOR_ACTIONS.join(', ')}` })
  action: OperatorAction;

  @ApiProperty({
    description: 'why; recorded in the transition log',
    example: 'provider confirmed an outage',
  })
  @IsFreeText(500) // hashed into the transition chain: stored exactly as hashed
  @Length(1, 500)
  @IsString()
  reason: string;
}
