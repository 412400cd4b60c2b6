import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsNumber, IsPositive, Max, Min } from 'class-validator';

export class SetQuorumDto {
  @ApiProperty({
    description: 'fraction of live instances that must be locally open, in (0, 1]',
    example: 0.5,
  })
  @Max(1, { message: 'fraction must be in (0, 1]' })
  @IsPositive({ message: 'fraction must be in (0, 1]' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  fraction: number;

  @ApiProperty({ description: 'at least this many locally open instances (integer ≥ 1)', example: 2 })
  @Max(1_000_000)
  @Min(1, { message: 'minOpen must be an integer ≥ 1' })
  @IsInt({ message: 'minOpen must be an integer ≥ 1' })
  minOpen: number;
}

export class GroupQuorumDto {
  @ApiProperty() group: string;
  @ApiProperty() fraction: number;
  @ApiProperty() minOpen: number;
}
