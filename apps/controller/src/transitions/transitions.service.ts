import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { decodeCursor, PAGE_DEFAULT, pageOf, type PageQuery } from '../common/paging.js';
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
import {
  type LeafProof,
  type SignedCheckpoint,
  TransparencyLogService,
} from '../receipts/transparency-log.service.js';

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
  /** the transition's leaf in the transparency log and its RFC 6962 audit path to `checkpoint` */
  leafIndex?: number | null;
  inclusionProof?: string[] | null;
}

/** The append-only, hash-chained transition log (one chain per breaker). */
@Injectable()
export class TransitionsService {
  constructor(
    @InjectRepository(TransitionEntity) private readonly transitions: Repository<TransitionEntity>,
    private readonly merkle: TransparencyLogService,
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

  /**
   * GET /v1/admin/transitions: newest first, paged; one breaker's log also says whether its chain
   * verifies. Keysets: one breaker's seq (UQ_transitions_breaker_seq), else (at, id) — `at` is
   * written from a JS Date, so the cursor's milliseconds are exact.
   */
  async log(
    breakerId: string | undefined,
    page: PageQuery,
  ): Promise<{
    transitions: TransitionView[];
    next: string | null;
    chain?: ChainCheck;
    checkpoint: SignedCheckpoint;
  }> {
    const limit = page.limit ?? PAGE_DEFAULT;
    const q = this.transitions.createQueryBuilder('t');
    if (breakerId) {
      const after = decodeCursor<readonly [number]>(page.cursor, ['number']);
      if (after && !(after[0] >= 0 && after[0] <= INT_MAX)) throw badCursor();
      q.where('t.breaker_id = :breakerId', { breakerId }).orderBy('t.seq', 'DESC');
      if (after) q.andWhere('t.seq < :seq', { seq: after[0] });
    } else {
      const after = decodeCursor<readonly [number, string]>(page.cursor, ['number', 'string']);
      if (after && !(after[0] >= 0 && after[0] <= MAX_DATE_MS && /^[0-9]{1,18}$/.test(after[1])))
        throw badCursor();
      q.orderBy('t.at', 'DESC').addOrderBy('t.id', 'DESC');
      if (after) q.where('(t.at, t.id) < (:at, :id)', { at: new Date(after[0]), id: after[1] });
    }
    const fetched = await q.limit(limit + 1).getMany();
    const { rows, next } = pageOf(fetched, limit, (r) =>
      breakerId ? [r.seq] : [r.at.getTime(), String(r.id)],
    );
    const { checkpoint, byTransition } = await this.merkle.proofs(rows.map((r) => String(r.id)));
    const transitions = rows.map((r) => withProof(toView(r), byTransition.get(String(r.id))));
    return breakerId
      ? { transitions, next, chain: await this.verify(breakerId), checkpoint }
      : { transitions, next, checkpoint };
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

// a cursor's numbers must fit the columns they are compared with (else Postgres answers an error)
const INT_MAX = 2 ** 31 - 1;
const MAX_DATE_MS = 8.64e15;
const badCursor = () => new BadRequestException('cursor is not a cursor this list returned');

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

/** A view with its log leaf and audit path (null for a row logged before the log existed). */
function withProof(view: TransitionView, proof: LeafProof | undefined): TransitionView {
  return { ...view, leafIndex: proof?.leafIndex ?? null, inclusionProof: proof?.inclusionProof ?? null };
}
