import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ChainCheckDto {
  @ApiProperty() ok: boolean;
  @ApiPropertyOptional() length?: number;
  @ApiPropertyOptional() brokenAtSeq?: number;
  @ApiPropertyOptional() why?: string;
}

export class TransitionDto {
  @ApiProperty() id: string;
  @ApiProperty() breakerId: string;
  @ApiProperty({ description: "position in the breaker's hash chain, from 1" }) seq: number;
  @ApiProperty({ enum: ['closed', 'open', 'probing', 'ramping'] }) from: string;
  @ApiProperty({ enum: ['closed', 'open', 'probing', 'ramping'] }) to: string;
  @ApiProperty() epoch: number;
  @ApiProperty({ type: Number, nullable: true }) fromStep: number | null;
  @ApiProperty({ type: Number, nullable: true }) step: number | null;
  @ApiProperty({ enum: ['quorum', 'cooldown', 'probe', 'ramp', 'operator'] }) actor: string;
  @ApiProperty() reason: string;
  @ApiProperty({ type: Object, description: 'quorum or gate figures behind the decision' })
  figures: Record<string, unknown>;
  @ApiProperty({ type: [String], description: 'instances whose verdicts formed a quorum decision' })
  formedBy: string[];
  @ApiProperty() at: string;
  @ApiProperty() prevHash: string;
  @ApiProperty({ description: 'sha256(prevHash + canonical JSON of the row)' }) hash: string;
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: "the row's leaf in the transparency log",
  })
  leafIndex?: number | null;
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    description: 'RFC 6962 audit path (base64) to `checkpoint`',
  })
  inclusionProof?: string[] | null;
}

export class SignedCheckpointDto {
  @ApiProperty() origin: string;
  @ApiProperty() size: number;
  @ApiProperty({ description: 'base64 RFC 6962 root' }) root: string;
  @ApiProperty({ description: 'the checkpoint as a signed note' }) note: string;
  @ApiProperty() keyId: string;
}

export class TransitionLogDto {
  @ApiProperty({ type: [TransitionDto] }) transitions: TransitionDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'cursor of the next (older) page (pass it as `cursor`); null on the last page',
  })
  next: string | null;
  @ApiPropertyOptional({ type: ChainCheckDto, description: 'with breakerId: whether the chain verifies' })
  chain?: ChainCheckDto;
  @ApiPropertyOptional({
    type: SignedCheckpointDto,
    description: 'the log checkpoint the inclusion proofs lead to',
  })
  checkpoint?: SignedCheckpointDto;
}
