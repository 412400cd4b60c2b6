// What a committed transition leaves for provability, in its own transaction: a log leaf per
// transition row, and for an OPEN by quorum the controller-signed certificate of the verdicts that
// formed it (the leaf commits to it). Called by BreakerStateService.transition, the one writer.
import { Injectable } from '@nestjs/common';
import type { BreakerDecision } from '@recloser/control';
import {
  type DsseEnvelope,
  type GateThresholds,
  type IdentityMode,
  keptSignedEpoch,
  signedEpoch,
} from '@recloser/core';
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
      const signed = await this.signedVerdicts(manager, breaker, decision.formedBy ?? [], opening.epoch - 1);
      const cert = quorumCertificate({
        breaker,
        epoch: opening.epoch,
        at: now,
        rows: decision.basis.rows.map((r) => ({ ...r, ...signed.get(r.instanceId) })),
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

  /**
   * The formers' latest signed verdicts on this breaker, those signed in the epoch it opens from or
   * within grace of it (core signedEpoch: the same rule that kept them at the heartbeat).
   */
  private async signedVerdicts(
    manager: EntityManager,
    breaker: { id: string; group: string; dependency: string },
    formedBy: readonly string[],
    epoch: number,
  ): Promise<Map<string, { envelope: DsseEnvelope; keyId: string }>> {
    if (formedBy.length === 0) return new Map();
    const rows = (await manager.query(
      `SELECT instance_id, key_id, envelope, epoch FROM signed_verdicts
       WHERE group_name = $1 AND dependency = $2 AND instance_id = ANY($3::text[])
         AND (breaker_id = $4 OR breaker_id IS NULL)`,
      [breaker.group, breaker.dependency, [...formedBy], breaker.id],
    )) as { instance_id: string; key_id: string; envelope: DsseEnvelope; epoch: number }[];
    return new Map(
      rows
        .filter((r) => keptSignedEpoch(signedEpoch(r.epoch, epoch)))
        .map((r) => [r.instance_id, { envelope: r.envelope, keyId: r.key_id }]),
    );
  }
}
