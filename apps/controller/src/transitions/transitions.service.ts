import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { TransitionRecord } from '@recloser/core';
import { EntityManager, Repository } from 'typeorm';
import {
  type ChainCheck,
  chainHash,
  type ChainedTransition,
  GENESIS_HASH,
  verifyChain,
} from './transition-chain.js';
import { TransitionEntity } from './transition.entity.js';

export interface TransitionView {
  id: string;
  breakerId: string;
  seq: number;
  from: string;
  to: string;
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: string;
  reason: string;
  figures: Record<string, unknown>;
  formedBy: string[];
  at: string;
  prevHash: string;
  hash: string;
}

/** The append-only, hash-chained transition log (one chain per breaker). */
@Injectable()
export class TransitionsService {
  constructor(
    @InjectRepository(TransitionEntity) private readonly transitions: Repository<TransitionEntity>,
  ) {}

  /**
   * Appends records to the breaker's chain. Must run inside the transaction that holds the
   * breaker's row lock (BreakerStateService.transition), which serialises appends per breaker.
   */
  async append(
    manager: EntityManager,
    breakerId: string,
    records: readonly TransitionRecord[],
    at: number,
    extra: { formedBy?: string[]; figures?: Record<string, unknown> } = {},
  ): Promise<TransitionEntity[]> {
    if (records.length === 0) return [];
    const repo = manager.getRepository(TransitionEntity);
    const last = await repo.findOne({
      where: { breakerId },
      order: { seq: 'DESC' },
      select: { seq: true, hash: true },
    });
    let seq = last?.seq ?? 0;
    let prevHash = last?.hash ?? GENESIS_HASH;
    const rows: TransitionEntity[] = [];
    for (const record of records) {
      seq += 1;
      const fields: ChainedTransition = {
        breakerId,
        seq,
        from: record.from,
        to: record.to,
        epoch: record.epoch,
        step: record.step ?? null,
        actor: record.actor,
        reason: record.reason,
        figures: { ...(record.figures as Record<string, unknown>), ...extra.figures },
        formedBy: [...(extra.formedBy ?? [])],
        at: new Date(at).toISOString(),
      };
      // hashed only when set: rows without a step change hash exactly as before the column existed
      if (record.fromStep !== null && record.fromStep !== undefined) fields.fromStep = record.fromStep;
      const hash = chainHash(prevHash, fields);
      rows.push(
        repo.create({ ...fields, fromStep: record.fromStep ?? null, at: new Date(at), prevHash, hash }),
      );
      prevHash = hash;
    }
    return repo.save(rows);
  }

  async list(breakerId: string | undefined, limit: number): Promise<TransitionView[]> {
    const rows = await this.transitions.find({
      where: breakerId ? { breakerId } : {},
      order: breakerId ? { seq: 'DESC' } : { at: 'DESC', id: 'DESC' },
      take: limit,
    });
    return rows.map(toView);
  }

  /** GET /v1/admin/transitions: newest first; one breaker's log also says whether its chain verifies. */
  async log(
    breakerId: string | undefined,
    limit: number,
  ): Promise<{ transitions: TransitionView[]; chain?: ChainCheck }> {
    const transitions = await this.list(breakerId, limit);
    return breakerId ? { transitions, chain: await this.verify(breakerId) } : { transitions };
  }

  async verify(breakerId: string): Promise<ChainCheck> {
    const rows = await this.transitions.find({ where: { breakerId }, order: { seq: 'ASC' } });
    return verifyChain(
      rows.map((r) => {
        const { id: _id, fromStep, ...chained } = toView(r);
        return fromStep === null ? chained : { ...chained, fromStep };
      }),
    );
  }
}

export function toView(r: TransitionEntity): TransitionView {
  return {
    id: String(r.id),
    breakerId: r.breakerId,
    seq: r.seq,
    from: r.from,
    to: r.to,
    epoch: r.epoch,
    fromStep: r.fromStep,
    step: r.step,
    actor: r.actor,
    reason: r.reason,
    figures: r.figures,
    formedBy: r.formedBy,
    at: r.at.toISOString(),
    prevHash: r.prevHash,
    hash: r.hash,
  };
}
