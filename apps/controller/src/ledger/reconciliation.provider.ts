// Reconciliation (libs/control) over the Postgres ledger and history, the breakers store and the
// outbox: the one object the ledger endpoints and the reconcile job call.
import type { Provider } from '@nestjs/common';
import { Reconciliation } from '@recloser/control';
import type { Clock } from '@recloser/core';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { OutboxService } from '../outbox/outbox.service.js';
import { BreakerHistoryRepository } from './breaker-history.repository.js';
import { LedgerRepository } from './ledger.repository.js';

export const reconciliationProvider: Provider = {
  provide: Reconciliation,
  inject: [
    LedgerRepository,
    BreakerHistoryRepository,
    BreakerStateService,
    OutboxService,
    CONTROL_CLOCK,
    ControllerConfig,
  ],
  useFactory: (
    ledger: LedgerRepository,
    history: BreakerHistoryRepository,
    breakers: BreakerStateService,
    events: OutboxService,
    clock: Clock,
    config: ControllerConfig,
  ) =>
    new Reconciliation(
      { ledger, history, breakers, events, clock },
      { heartbeatIntervalMs: config.heartbeatIntervalMs, heartbeatTtlMs: config.heartbeatTtlMs },
    ),
};
