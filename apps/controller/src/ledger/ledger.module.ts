import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module.js';
import { BreakerHistoryRepository } from './breaker-history.repository.js';
import { LedgerConsumer } from './ledger.consumer.js';
import { LedgerController } from './ledger.controller.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerService } from './ledger.service.js';
import { ReconcileJob } from './reconcile.job.js';
import { reconciliationProvider } from './reconciliation.provider.js';

/** Work-unit events, refunds and the reconciliation job (issue 11). */
@Module({
  imports: [OutboxModule],
  controllers: [LedgerController],
  providers: [
    LedgerRepository,
    BreakerHistoryRepository,
    reconciliationProvider,
    LedgerService,
    ReconcileJob,
    LedgerConsumer,
  ],
})
export class LedgerModule {}
