import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsObject,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class DsseSignatureDto {
  @ApiProperty({ description: 'the registered instance key id' })
  @Length(1, 200, { message: 'keyid must be 1 to 200 characters' })
  @IsString()
  keyid: string;

  @ApiProperty({ description: 'base64 Ed25519 signature over PAE(payloadType, payload)' })
  @Matches(BASE64, { message: 'sig must be base64' })
  @Length(1, 200, { message: 'sig must be base64 of at most 200 characters' })
  @IsString()
  sig: string;
}

/** A DSSE envelope (secure-systems-lab/dsse v1). */
export class DsseEnvelopeDto {
  @ApiProperty({ example: 'application/vnd.recloser.verdict.v1+json' })
  @Length(1, 200, { message: 'payloadType must be 1 to 200 characters' })
  @IsString()
  payloadType: string;

  @ApiProperty({ description: 'base64 of the canonical JSON (RFC 8785) statement' })
  @Matches(BASE64, { message: 'payload must be base64' })
  @Length(1, 16_384, { message: 'payload must be base64 of at most 16384 characters' })
  @IsString()
  payload: string;

  @ApiProperty({ type: [DsseSignatureDto] })
  @ValidateNested({ each: true })
  @Type(() => DsseSignatureDto)
  @IsObject({ each: true, message: 'signatures must hold objects' })
  @ArrayMaxSize(4)
  @ArrayMinSize(1, { message: 'signatures must hold at least one signature' })
  @IsArray()
  signatures: DsseSignatureDto[];
}
