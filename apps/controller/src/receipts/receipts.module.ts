import { Module } from '@nestjs/common';
import { PoolsModule } from '../pools/pools.module.js';
import { GroupIdentityController } from './group-identity.controller.js';
import { InstanceKeysController } from './instance-keys.controller.js';
import { ReceiptsController } from './receipts.controller.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TransitionReceipts } from './transition-receipts.js';
import { TransparencyLogService } from './transparency-log.service.js';
import { VerdictIdentityService } from './verdict-identity.service.js';

/** Provable decisions: the transparency log, its checkpoints and proofs, the signing keys, bundles. */
@Module({
  imports: [PoolsModule],
  controllers: [ReceiptsController, InstanceKeysController, GroupIdentityController],
  providers: [SigningKeysService, TransparencyLogService, TransitionReceipts, VerdictIdentityService],
  exports: [SigningKeysService, TransparencyLogService, TransitionReceipts, VerdictIdentityService],
})
export class ReceiptsModule {}
