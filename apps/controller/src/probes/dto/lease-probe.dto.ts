import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsIdentifier, IsTrafficClass } from '../../common/input-rules.js';

export class LeaseProbeDto {
  @ApiProperty({ example: 'worker-17' })
  @IsIdentifier()
  @IsString()
  instanceId: string;

  @ApiProperty({ example: 'orders-consumer' })
  @IsIdentifier()
  @IsString()
  group: string;

  @ApiProperty({ example: 'llm-provider' })
  @IsIdentifier()
  @IsString()
  dependency: string;

  @ApiPropertyOptional({
    example: 'standard',
    description: 'traffic class of the real call the probe rides on',
  })
  @IsOptional()
  @IsTrafficClass()
  @IsString()
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
