import { ApiProperty } from '@nestjs/swagger';
import { IDENTITY_MODES, type IdentityMode } from '@recloser/core';
import { IsIn, IsString, Length, Matches } from 'class-validator';
import { IsIdentifier } from '../../common/input-rules.js';

export class RegisterInstanceKeyDto {
  @ApiProperty({ example: 'worker-17' })
  @IsIdentifier()
  @IsString()
  instanceId: string;

  @ApiProperty({ example: 'orders-consumer' })
  @IsIdentifier()
  @IsString()
  group: string;

  @ApiProperty({ description: 'base64 of the raw 32-byte Ed25519 public key' })
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'publicKey must be base64 of a raw 32-byte Ed25519 public key',
  })
  @Length(44, 44, { message: 'publicKey must be base64 of a raw 32-byte Ed25519 public key' })
  @IsString()
  publicKey: string;
}

export class InstanceKeyDto {
  @ApiProperty({ description: 'the key id instances put in their envelopes' }) keyId: string;
}

export class SetIdentityDto {
  @ApiProperty({
    enum: IDENTITY_MODES,
    description:
      'off: signatures ignored; optional: checked when sent; required: every locally open verdict signed',
  })
  @IsIn(IDENTITY_MODES, { message: `mode must be one of ${IDENTITY_MODES.join(', ')}` })
  mode: IdentityMode;
}

export class GroupIdentityDto {
  @ApiProperty() group: string;
  @ApiProperty({ enum: IDENTITY_MODES }) identity: IdentityMode;
}
