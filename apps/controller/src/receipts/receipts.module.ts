import { Module } from '@nestjs/common';
import { PoolsModule } from '../pools/pools.module.js';
import { ReceiptsController } from './receipts.controller.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TransitionReceipts } from './transition-receipts.js';
import { TransparencyLogService } from './transparency-log.service.js';

/** Provable decisions: the transparency log, its checkpoints and proofs, the signing keys, bundles. */
@Module({
  imports: [PoolsModule],
  controllers: [ReceiptsController],
  providers: [SigningKeysService, TransparencyLogService, TransitionReceipts],
  exports: [SigningKeysService, TransparencyLogService, TransitionReceipts],
})
export class ReceiptsModule {}
