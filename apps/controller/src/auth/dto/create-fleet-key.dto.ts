import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsString, Length, Matches } from 'class-validator';

export const NAME_PATTERN = /^[A-Za-z0-9._:@/-]+$/;

export class CreateFleetKeyDto {
  @ApiProperty({ example: 'orders fleet' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: ['orders-consumer'], description: 'groups this key may report for' })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 200, { each: true })
  @Matches(NAME_PATTERN, { each: true, message: 'each group may hold letters, digits and . _ : @ / -' })
  groups: string[];
}

export class FleetKeyCreatedDto {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'the key itself; shown once, stored only as a hash' })
  key: string;
}
