// POST /v1/ledger/events and GET /v1/ledger/refunds: the key's group is checked (403 otherwise),
// then Reconciliation stores the events (idempotent by eventId) or pages the refunds.
import { Injectable } from '@nestjs/common';
import { Reconciliation } from '@recloser/control';
import { assertGroupAllowed, type FleetPrincipal } from '../auth/fleet-principal.js';
import { PAGE_DEFAULT } from '../common/paging.js';
import {
  toLedgerEvents,
  type LedgerEventsAcceptedDto,
  type LedgerEventsDto,
} from './dto/ledger-events.dto.js';
import type { ListRefundsQuery, RefundPageDto } from './dto/list-refunds.query.js';

@Injectable()
export class LedgerService {
  constructor(private readonly reconciliation: Reconciliation) {}

  record(principal: FleetPrincipal, dto: LedgerEventsDto): Promise<LedgerEventsAcceptedDto> {
    assertGroupAllowed(principal, dto.group);
    return this.reconciliation.record(dto.group, toLedgerEvents(dto));
  }

  async refunds(principal: FleetPrincipal, query: ListRefundsQuery): Promise<RefundPageDto> {
    assertGroupAllowed(principal, query.group);
    const page = await this.reconciliation.refunds(
      query.group,
      query.after ?? null,
      query.limit ?? PAGE_DEFAULT,
    );
    return {
      refunds: page.refunds.map((r) => ({
        refundId: r.refundId,
        workId: r.workId,
        attempts: r.attempts,
        reclaims: r.reclaims,
        reason: r.reason,
        eventId: r.eventId,
        instanceId: r.instanceId,
        dependency: r.dependency,
        at: new Date(r.at).toISOString(),
      })),
      next: page.next,
    };
  }
}
