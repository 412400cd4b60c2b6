// Breakers on Postgres: the control layer's BreakerStore. The only writer of a breaker's global
// state is `transition`: under the row's lock (SELECT … FOR UPDATE) it stores the next state, appends
// the transition rows to the hash chain and writes the transitions' events to the outbox, all in one
// transaction, so any number of replicas behave as one and no event is lost between commit and publish.
import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ControlError,
  type BreakerDecision,
  type BreakerStore,
  type CommittedTransition,
  type ControlEventDraft,
  type LiveCounts,
  type TransitionScope,
  withAudit,
} from '@recloser/control';
import {
  initialGlobalState,
  type Clock,
  type GlobalBreakerState,
  type QuorumFiguresWire,
} from '@recloser/core';
import { CONTROL_CLOCK } from '../control/clock.js';
import { DataSource, In, Not } from 'typeorm';
import { OutboxService } from '../outbox/outbox.service.js';
import { canonicalJson } from '../transitions/transition-chain.js';
import type { TransitionEntity } from '../transitions/transition.entity.js';
import { TransitionsService } from '../transitions/transitions.service.js';
import { TransitionReceipts } from '../receipts/transition-receipts.js';
import { BreakerEntity, WHOLE_GROUP } from './breaker.entity.js';
import { VerdictsRepository } from './verdicts.repository.js';

/** A commit as the controller keeps it: the control layer's records plus the hash-chained log rows. */
export interface StoredTransition extends CommittedTransition {
  breaker: BreakerEntity;
  rows: TransitionEntity[];
}

const NO_QUORUM: QuorumFiguresWire = { open: 0, live: 0, threshold: 0 };

/** The columns of a breaker created CLOSED at `now` (its group, dependency, scope and pool apart). */
function newBreakerColumns(now: number) {
  const state = initialGlobalState(now);
  return {
    state: state.state,
    epoch: state.epoch,
    globalState: state,
    quorum: NO_QUORUM,
    formedBy: [],
    version: 1,
  };
}

const MAX_KNOWN_IDS = 100_000;

@Injectable()
export class BreakerStateService implements BreakerStore<StoredTransition> {
  private readonly knownIds = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly transitions: TransitionsService,
    private readonly verdicts: VerdictsRepository,
    private readonly outbox: OutboxService,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
    private readonly receipts: TransitionReceipts,
  ) {}

  /**
   * The ids of one heartbeat's breakers, creating missing ones. Ids never change, so each replica
   * remembers them (keyed with the pool id, so a dependency moved to another pool is written once).
   */
  async idsFor(
    group: string,
    wanted: readonly { dependency: string; poolId: string }[],
    now: number,
    admit?: (existing: number, adding: number) => void,
  ): Promise<Map<string, string>> {
    const key = (dependency: string, poolId: string) => `${group}\u0000${dependency}\u0000${poolId}`;
    const ids = new Map<string, string>();
    const missing = wanted.filter((w) => {
      const id = this.knownIds.get(key(w.dependency, w.poolId));
      if (id) ids.set(w.dependency, id);
      return !id;
    });
    if (missing.length > 0) {
      for (const [dependency, breaker] of await this.getOrCreateMany(group, missing, now, admit)) {
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
    admit?: (existing: number, adding: number) => void,
  ): Promise<Map<string, BreakerEntity>> {
    const repo = this.db.getRepository(BreakerEntity);
    const dependencies = wanted.map((w) => w.dependency);
    const where = { group, dependency: In(dependencies), ...WHOLE_GROUP };
    const byDependency = async () => new Map((await repo.find({ where })).map((b) => [b.dependency, b]));
    let found = await byDependency();
    const missing = wanted.filter((w) => !found.has(w.dependency));
    if (missing.length > 0) {
      admit?.(await repo.count({ where: { group } }), missing.length);
      const columns = newBreakerColumns(now);
      await repo
        .createQueryBuilder()
        .insert()
        .values(
          missing.map((w) => ({
            group,
            dependency: w.dependency,
            ...WHOLE_GROUP,
            poolId: w.poolId,
            ...columns,
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

  async get(breakerId: string): Promise<BreakerEntity | null> {
    return this.db.getRepository(BreakerEntity).findOneBy({ id: breakerId });
  }

  /** The breaker, or a 404 naming it. */
  async require(breakerId: string): Promise<BreakerEntity> {
    const breaker = await this.get(breakerId);
    if (!breaker) throw new NotFoundException(`breaker ${breakerId} not found`);
    return breaker;
  }

  async getMany(breakerIds: readonly string[]): Promise<BreakerEntity[]> {
    if (breakerIds.length === 0) return [];
    return this.db
      .getRepository(BreakerEntity)
      .find({ where: { id: In([...breakerIds]) }, order: { id: 'ASC' } });
  }

  /** One round trip: the rows and their live/open verdict counts. */
  async withCounts(
    breakerIds: readonly string[],
    now: number,
  ): Promise<{ breaker: BreakerEntity; counts: LiveCounts }[]> {
    const rows = await this.verdicts.breakersWithCounts([...breakerIds], now);
    return rows.map(({ breaker, live, open }) => ({ breaker, counts: { live, open } }));
  }

  async find(group: string, dependency: string): Promise<BreakerEntity | null> {
    return this.db.getRepository(BreakerEntity).findOneBy({ group, dependency, ...WHOLE_GROUP });
  }

  /** The breaker scoped to one region of (group, dependency), created CLOSED on first sight. */
  async regionBreaker(
    group: string,
    dependency: string,
    region: string,
    poolId: string,
    now: number,
  ): Promise<BreakerEntity> {
    const repo = this.db.getRepository(BreakerEntity);
    const where = { group, dependency, scopeKind: 'region' as const, scopeValue: region };
    const found = await repo.findOneBy(where);
    if (found) return found;
    await repo
      .createQueryBuilder()
      .insert()
      .values({ ...where, poolId, ...newBreakerColumns(now) })
      .orIgnore() // another replica created it at the same instant
      .execute();
    return repo.findOneByOrFail(where);
  }

  async regionBreakers(group: string, dependency: string): Promise<BreakerEntity[]> {
    return this.db
      .getRepository(BreakerEntity)
      .find({ where: { group, dependency, scopeKind: 'region' }, order: { scopeValue: 'ASC' } });
  }

  async contendingGroups(poolId: string): Promise<number> {
    const [row] = (await this.db.query(
      `SELECT count(DISTINCT group_name)::int AS n FROM breakers WHERE pool_id = $1 AND state IN ('open', 'probing')`,
      [poolId],
    )) as { n: number }[];
    return row?.n ?? 0;
  }

  async active(): Promise<BreakerEntity[]> {
    return this.db.getRepository(BreakerEntity).find({ where: { state: Not('closed') } });
  }

  /**
   * In one transaction: lock the breaker row, let `decide` apply a core decision to its current
   * state, persist the next state, append its transition rows to the hash chain and its events to
   * the outbox. `decide` returning null (or an unchanged state without transitions) writes nothing.
   */
  async transition(
    breakerId: string,
    decide: (state: GlobalBreakerState, scope: TransitionScope) => Promise<BreakerDecision | null>,
    events: (committed: CommittedTransition) => ControlEventDraft[],
  ): Promise<StoredTransition> {
    const outcome = await this.db.transaction(async (manager): Promise<StoredTransition> => {
      const repo = manager.getRepository(BreakerEntity);
      const breaker = await repo.findOne({ where: { id: breakerId }, lock: { mode: 'pessimistic_write' } });
      if (!breaker) throw new ControlError('not_found', `breaker ${breakerId} not found`);
      const now = this.clock.now();
      const decision = await decide(breaker.globalState, {
        breaker,
        now,
        presence: this.verdicts.reader(manager),
      });
      const nothing: StoredTransition = { breaker, transitions: [], rows: [] };
      if (!decision) return nothing;
      const changed = canonicalJson(decision.next) !== canonicalJson(breaker.globalState);
      if (!changed && decision.transitions.length === 0) return nothing;

      breaker.globalState = decision.next;
      breaker.state = decision.next.state;
      breaker.epoch = decision.next.epoch;
      if (decision.quorum) breaker.quorum = decision.quorum;
      if (decision.formedBy) breaker.formedBy = [...decision.formedBy];
      breaker.version += 1;
      breaker.archivedAt = null; // a breaker that moves is never hidden from the lists
      const saved = await repo.save(breaker);
      const extra: { formedBy?: string[]; figures?: Record<string, unknown> } = {};
      if (decision.formedBy) extra.formedBy = decision.formedBy;
      if (decision.figures) extra.figures = decision.figures;
      const rows = await this.transitions.append(manager, breakerId, decision.transitions, now, extra);
      await this.receipts.record(manager, saved, decision, rows, now); // log leaves, quorum certificate
      const transitions = decision.transitions.map((t) => withAudit(t, decision));
      const committed: StoredTransition = { breaker: saved, transitions, rows };
      await this.outbox.append(manager, events(committed));
      return committed;
    });
    if (outcome.transitions.length > 0) this.outbox.kick(); // deliver now rather than at the next poll
    return outcome;
  }
}
