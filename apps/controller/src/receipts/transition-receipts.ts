// What a committed transition leaves for provability, in its own transaction: a log leaf per
// transition row, and for an OPEN by quorum (a group's, or a region's: region_open) the
// controller-signed certificate of the verdicts that formed it (the leaf commits to it). Called by BreakerStateService.transition, the one writer.
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
    breaker: { id: string; group: string; dependency: string; scopeKind?: string; region?: string | null },
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
      // a region_open: its instances followed the group's breaker (their own was closed) and signed
      // its epoch; a global OPEN's signed the epoch the breaker opens from
      const region = breaker.scopeKind === 'region' ? await this.regionOf(manager, breaker) : null;
      const signed = await this.signedVerdicts(
        manager,
        breaker,
        region?.groupBreakerId ?? breaker.id,
        decision.formedBy ?? [],
        region?.signedIn ?? opening.epoch - 1,
        breaker.scopeKind !== 'region',
      );
      const cert = quorumCertificate({
        breaker,
        epoch: opening.epoch,
        at: now,
        rows: decision.basis.rows.map((r) => ({ ...r, ...signed.get(r.instanceId) })),
        formedBy: decision.formedBy ?? [],
        threshold: decision.quorum.threshold,
        policy: decision.basis.policy,
        identity: group?.identity ?? 'off',
        ...(region ? { region } : {}),
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

  /** A region breaker's region, its group breaker and that one's epoch now (it is CLOSED: no lock needed). */
  private async regionOf(
    manager: EntityManager,
    breaker: { group: string; dependency: string; region?: string | null },
  ): Promise<{ region: string; groupBreakerId: string; signedIn: number } | null> {
    const [g] = (await manager.query(
      `SELECT id, epoch FROM breakers WHERE group_name = $1 AND dependency = $2 AND scope_kind = 'group'`,
      [breaker.group, breaker.dependency],
    )) as { id: string; epoch: number }[];
    return g && breaker.region ? { region: breaker.region, groupBreakerId: g.id, signedIn: g.epoch } : null;
  }

  /**
   * The formers' latest verdicts signed on `signedOn` (the breaker whose epoch they name) in `epoch`
   * or within grace of it (core signedEpoch: the rule that kept them at the heartbeat). For a global
   * OPEN (`ownRegions`), also those signed on a region breaker of the group, which their instances
   * followed: judged by that breaker's epoch now, and certified with it (`followed`).
   */
  private async signedVerdicts(
    manager: EntityManager,
    breaker: { group: string; dependency: string },
    signedOn: string,
    formedBy: readonly string[],
    epoch: number,
    ownRegions: boolean,
  ): Promise<
    Map<string, { envelope: DsseEnvelope; keyId: string; followed?: { breakerId: string; epoch: number } }>
  > {
    if (formedBy.length === 0) return new Map();
    const rows = (await manager.query(
      `SELECT s.instance_id, s.key_id, s.envelope, s.epoch, s.breaker_id, r.epoch AS region_epoch
       FROM signed_verdicts s
       LEFT JOIN breakers r ON r.id = s.breaker_id AND r.scope_kind = 'region'
         AND r.group_name = s.group_name AND r.dependency = s.dependency
       WHERE s.group_name = $1 AND s.dependency = $2 AND s.instance_id = ANY($3::text[])`,
      [breaker.group, breaker.dependency, [...formedBy]],
    )) as {
      instance_id: string;
      key_id: string;
      envelope: DsseEnvelope;
      epoch: number;
      breaker_id: string | null;
      region_epoch: number | null;
    }[];
    const kept = new Map<
      string,
      { envelope: DsseEnvelope; keyId: string; followed?: { breakerId: string; epoch: number } }
    >();
    for (const r of rows) {
      const signed = { envelope: r.envelope, keyId: r.key_id };
      if (r.breaker_id === null || r.breaker_id === signedOn) {
        if (keptSignedEpoch(signedEpoch(r.epoch, epoch))) kept.set(r.instance_id, signed);
      } else if (
        ownRegions &&
        r.region_epoch !== null &&
        keptSignedEpoch(signedEpoch(r.epoch, r.region_epoch))
      )
        kept.set(r.instance_id, { ...signed, followed: { breakerId: r.breaker_id, epoch: r.region_epoch } });
    }
    return kept;
  }
}
