import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  type Decision,
  type GlobalBreakerState,
  initialGlobalState,
  type QuorumFiguresWire,
} from '@recloser/core';
import { DataSource, EntityManager, In } from 'typeorm';
import { countTransition } from '../telemetry/controller-metrics.js';
import { canonicalJson } from '../transitions/transition-chain.js';
import type { TransitionEntity } from '../transitions/transition.entity.js';
import { TransitionsService } from '../transitions/transitions.service.js';
import { BreakerEntity, WHOLE_GROUP } from './breaker.entity.js';

export interface TransitionContext {
  /** the breaker row as locked (before the decision) */
  breaker: Readonly<BreakerEntity>;
  /** controller clock, ms, read after the lock was taken */
  now: number;
  /** the transaction: read what the decision needs through it */
  manager: EntityManager;
}

/** A core Decision plus what the controller records beside it. */
export interface BreakerDecision extends Decision {
  /** figures shown for the breaker from now on (e.g. the quorum that opened it) */
  quorum?: QuorumFiguresWire;
  /** instances whose verdicts formed the decision; stored on the breaker and on each transition row */
  formedBy?: string[];
  /** extra audit figures merged into each transition row (e.g. which trigger evaluated it) */
  figures?: Record<string, unknown>;
}

export interface TransitionOutcome {
  breaker: BreakerEntity;
  transitions: TransitionEntity[];
}

const NO_QUORUM: QuorumFiguresWire = { open: 0, live: 0, threshold: 0 };

/**
 * The only writer of a breaker's global state. Postgres is the source of truth and every change
 * happens under the row's lock, so any number of replicas behave as one.
 */
const MAX_KNOWN_IDS = 100_000;

@Injectable()
export class BreakerStateService {
  private readonly knownIds = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly transitions: TransitionsService,
  ) {}

  /**
   * The ids of one heartbeat's breakers, creating missing ones. Ids never change, so each replica
   * remembers them (keyed with the pool id, so a dependency moved to another pool is written once).
   */
  async idsFor(
    group: string,
    wanted: readonly { dependency: string; poolId: string }[],
    now: number,
  ): Promise<Map<string, string>> {
    const key = (dependency: string, poolId: string) => `${group}\u0000${dependency}\u0000${poolId}`;
    const ids = new Map<string, string>();
    const missing = wanted.filter((w) => {
      const id = this.knownIds.get(key(w.dependency, w.poolId));
      if (id) ids.set(w.dependency, id);
      return !id;
    });
    if (missing.length > 0) {
      for (const [dependency, breaker] of await this.getOrCreateMany(group, missing, now)) {
        ids.set(dependency, breaker.id);
        if (this.knownIds.size >= MAX_KNOWN_IDS) this.knownIds.clear();
        this.knownIds.set(key(dependency, breaker.poolId), breaker.id);
      }
    }
    return ids;
  }

  /**
   * The breakers of one heartbeat, created CLOSED on first sight, pool ids kept current: one read, and
   * one insert only for the new ones.
   */
  private async getOrCreateMany(
    group: string,
    wanted: readonly { dependency: string; poolId: string }[],
    now: number,
  ): Promise<Map<string, BreakerEntity>> {
    const repo = this.db.getRepository(BreakerEntity);
    const dependencies = wanted.map((w) => w.dependency);
    const where = { group, dependency: In(dependencies), ...WHOLE_GROUP };
    const byDependency = async () => new Map((await repo.find({ where })).map((b) => [b.dependency, b]));
    let found = await byDependency();
    const missing = wanted.filter((w) => !found.has(w.dependency));
    if (missing.length > 0) {
      const state = initialGlobalState(now);
      await repo
        .createQueryBuilder()
        .insert()
        .values(
          missing.map((w) => ({
            group,
            dependency: w.dependency,
            ...WHOLE_GROUP,
            poolId: w.poolId,
            state: state.state,
            epoch: state.epoch,
            globalState: state,
            quorum: NO_QUORUM,
            formedBy: [],
            version: 1,
          })),
        )
        .orIgnore() // another replica created it at the same instant
        .execute();
      found = await byDependency();
    }
    for (const w of wanted) {
      const breaker = found.get(w.dependency)!;
      if (breaker.poolId !== w.poolId) {
        // the operator moved the dependency to another pool since
        await repo.update({ id: breaker.id }, { poolId: w.poolId });
        breaker.poolId = w.poolId;
      }
    }
    return found;
  }

  async get(breakerId: string): Promise<BreakerEntity> {
    const breaker = await this.db.getRepository(BreakerEntity).findOneBy({ id: breakerId });
    if (!breaker) throw new NotFoundException(`breaker ${breakerId} not found`);
    return breaker;
  }

  /**
   * In one transaction: lock the breaker row (SELECT … FOR UPDATE), let `decide` apply a core
   * decision to its current state, persist the next state and append its transition rows to the
   * hash chain. `decide` returning null (or an unchanged state without transitions) writes nothing.
   */
  async transition(
    breakerId: string,
    decide: (
      state: GlobalBreakerState,
      ctx: TransitionContext,
    ) => BreakerDecision | null | Promise<BreakerDecision | null>,
  ): Promise<TransitionOutcome> {
    const outcome = await this.db.transaction(async (manager): Promise<TransitionOutcome> => {
      const repo = manager.getRepository(BreakerEntity);
      const breaker = await repo.findOne({ where: { id: breakerId }, lock: { mode: 'pessimistic_write' } });
      if (!breaker) throw new NotFoundException(`breaker ${breakerId} not found`);
      const now = Date.now();
      const decision = await decide(breaker.globalState, { breaker, now, manager });
      if (!decision) return { breaker, transitions: [] };
      const changed = canonicalJson(decision.next) !== canonicalJson(breaker.globalState);
      if (!changed && decision.transitions.length === 0) return { breaker, transitions: [] };

      breaker.globalState = decision.next;
      breaker.state = decision.next.state;
      breaker.epoch = decision.next.epoch;
      if (decision.quorum) breaker.quorum = decision.quorum;
      if (decision.formedBy) breaker.formedBy = [...decision.formedBy];
      breaker.version += 1;
      const saved = await repo.save(breaker);
      const extra: { formedBy?: string[]; figures?: Record<string, unknown> } = {};
      if (decision.formedBy) extra.formedBy = decision.formedBy;
      if (decision.figures) extra.figures = decision.figures;
      const rows = await this.transitions.append(manager, breakerId, decision.transitions, now, extra);
      return { breaker: saved, transitions: rows };
    });
    for (const r of outcome.transitions) countTransition(r.from, r.to, r.actor); // counted once committed
    return outcome;
  }
}
