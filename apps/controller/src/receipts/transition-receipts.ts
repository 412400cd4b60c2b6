// What a committed transition leaves for provability, in its own transaction: a log leaf per
// transition row, and for an OPEN by quorum the controller-signed certificate of the verdicts that
// formed it (the leaf commits to it). Called by BreakerStateService.transition, the one writer.
import { Injectable } from '@nestjs/common';
import type { BreakerDecision } from '@recloser/control';
import type { GateThresholds, IdentityMode } from '@recloser/core';
import { PoolsService } from '../pools/pools.service.js';
import type { EntityManager } from 'typeorm';
import type { TransitionEntity } from '../transitions/transition.entity.js';
import { quorumCertificate, signCertificate } from './quorum-certificate.js';
import { SigningKeysService } from './signing-keys.service.js';
import { TransparencyLogService } from './transparency-log.service.js';

@Injectable()
export class TransitionReceipts {
  constructor(
    private readonly log: TransparencyLogService,
    private readonly keys: SigningKeysService,
    private readonly pools: PoolsService,
  ) {}

  async record(
    manager: EntityManager,
    breaker: { id: string; group: string; dependency: string },
    decision: BreakerDecision,
    rows: readonly TransitionEntity[],
    now: number,
  ): Promise<void> {
    if (rows.length === 0) return;
    const opening = rows.find((r) => r.actor === 'quorum' && r.to === 'open');
    let certificate = null;
    if (opening && decision.basis && decision.quorum) {
      const [group] = (await manager.query(`SELECT identity FROM fleet_groups WHERE group_name = $1`, [
        breaker.group,
      ])) as { identity: IdentityMode }[];
      const cert = quorumCertificate({
        breaker,
        epoch: opening.epoch,
        at: now,
        rows: decision.basis.rows,
        formedBy: decision.formedBy ?? [],
        threshold: decision.quorum.threshold,
        policy: decision.basis.policy,
        identity: group?.identity ?? 'off',
      });
      certificate = signCertificate(cert, await this.keys.active());
    }
    let gateThresholds: GateThresholds | null = null;
    if (rows.some((r) => r.actor === 'ramp')) {
      // the pool the ramp judged on (the same resolution as the control plane's, cached ≤ 1 s)
      gateThresholds = (await this.pools.resolve(breaker.dependency, breaker.group)).ramp.gates;
    }
    await this.log.append(manager, breaker, rows, { certificate, gateThresholds });
  }
}
