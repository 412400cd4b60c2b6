import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, Length } from 'class-validator';
import { IsFreeText, IsIdentifier } from '../../common/input-rules.js';

export class CreateFleetKeyDto {
  @ApiProperty({ example: 'orders fleet' })
  @IsFreeText(200)
  @Length(1, 200)
  @IsString()
  name: string;

  @ApiProperty({ example: ['orders-consumer'], description: 'groups this key may report for' })
  @IsIdentifier({ each: true })
  @IsString({ each: true })
  @ArrayMaxSize(100)
  @ArrayNotEmpty()
  @IsArray()
  groups: string[];
}

export class FleetKeyCreatedDto {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'the key itself; shown once, stored only as a hash' })
  key: string;
}
