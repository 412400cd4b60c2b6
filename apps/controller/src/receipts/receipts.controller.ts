import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Bundle, PublicKeyInfo } from '@recloser/core';
import { AdminGuard } from '../auth/admin.guard.js';
import { BundleQuery, ConsistencyQuery } from './dto/log-queries.js';
import { SigningKeysService } from './signing-keys.service.js';
import { type SignedCheckpoint, TransparencyLogService } from './transparency-log.service.js';
import { breakerIdParam } from '../breakers/breaker-id.pipe.js';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class ReceiptsController {
  constructor(
    private readonly log: TransparencyLogService,
    private readonly keys: SigningKeysService,
  ) {}

  @Get('log/checkpoint')
  @ApiOkResponse({ description: 'the latest signed checkpoint (signed-note: origin, size, root)' })
  @ApiOperation({ summary: "The transparency log's latest signed checkpoint" })
  checkpoint(): Promise<SignedCheckpoint> {
    return this.log.checkpoint();
  }

  @Get('log/consistency')
  @ApiOperation({ summary: 'RFC 6962 consistency proof between two tree sizes' })
  consistency(@Query() q: ConsistencyQuery): ReturnType<TransparencyLogService['consistency']> {
    return this.log.consistency(q.from, q.to);
  }

  @Get('log/keys')
  @ApiOperation({
    summary: "The controller's public keys (active and retired), as signed-note verifier keys",
  })
  async publicKeys(): Promise<{ keys: PublicKeyInfo[] }> {
    return { keys: await this.keys.all() };
  }

  @Get('breakers/:id/bundle')
  @ApiOperation({
    summary:
      "A breaker's export: receipts, log entries with inclusion proofs, the signed checkpoint, public keys",
  })
  bundle(@Param('id', breakerIdParam) id: string, @Query() q: BundleQuery): Promise<Bundle> {
    return this.log.bundle(id, q.since);
  }
}
