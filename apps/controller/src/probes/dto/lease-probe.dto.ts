import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class LeaseProbeDto {
  @ApiProperty({ example: 'worker-17' })
  @IsString()
  @Length(1, 200)
  instanceId: string;

  @ApiProperty({ example: 'orders-consumer' })
  @IsString()
  @Length(1, 200)
  group: string;

  @ApiProperty({ example: 'llm-provider' })
  @IsString()
  @Length(1, 200)
  dependency: string;

  @ApiPropertyOptional({
    example: 'standard',
    description: 'traffic class of the real call the probe rides on',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  class?: string;
}

export class ProbeLeaseDto {
  @ApiProperty({ description: 'present it with the probe result; valid for validForMs from now' })
  token: string;

  @ApiProperty({ description: 'monotonically increasing per pool; providers may reject lower numbers' })
  fencing: number;

  @ApiProperty({ description: "the lease's remaining life on the controller's clock" })
  validForMs: number;
}
