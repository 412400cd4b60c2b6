import { Injectable } from '@nestjs/common';
import {
  evaluateQuorum,
  quorumThreshold,
  mathRng,
  onQuorum,
  type PoolConfig,
  type QuorumDecision,
  type QuorumFiguresWire,
  type QuorumPolicy,
  type QuorumRow,
} from '@recloser/core';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService, type GroupView } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import type { BreakerEntity } from './breaker.entity.js';
import { BreakerStateService } from './breaker-state.service.js';
import { type LiveCounts, VerdictsRepository } from './verdicts.repository.js';

export type EvaluationTrigger = 'heartbeat' | 'periodic';

export interface Evaluated {
  breaker: BreakerEntity;
  /** the figures to show: live figures while CLOSED, those of the opening decision otherwise */
  quorum: QuorumFiguresWire;
}

/**
 * Quorum on Postgres: core evaluateQuorum over the live verdict rows, core onQuorum for the
 * lifecycle. Runs on each heartbeat and periodically (EvaluateQuorumJob), under the breaker's lock.
 */
@Injectable()
export class QuorumEvaluationService {
  /** the controller learns the fleet for one TTL after it (re)starts */
  readonly startedAt = Date.now();

  constructor(
    private readonly config: ControllerConfig,
    private readonly breakers: BreakerStateService,
    private readonly verdicts: VerdictsRepository,
    private readonly groups: FleetGroupsService,
    private readonly pools: PoolsService,
  ) {}

  /** No quorum opens before this: one TTL after the controller started and after the group was first seen. */
  learningUntil(group: GroupView): number {
    return Math.max(this.startedAt, group.firstSeenAt) + this.config.heartbeatTtlMs;
  }

  decide(rows: readonly QuorumRow[], group: GroupView, now: number): QuorumDecision {
    return evaluateQuorum(rows, {
      now,
      heartbeatTtlMs: this.config.heartbeatTtlMs,
      policy: group.quorum,
      learningUntil: this.learningUntil(group),
    });
  }

  /** Evaluates the given breakers (one read for all of them); returns what each shows now, by id. */
  async evaluateMany(breakerIds: string[], trigger: EvaluationTrigger): Promise<Map<string, Evaluated>> {
    const now = Date.now();
    const out = new Map<string, Evaluated>();
    for (const { breaker, live, open } of await this.verdicts.breakersWithCounts(
      breakerIds,
      now - this.config.heartbeatTtlMs,
    )) {
      out.set(breaker.id, await this.evaluateOne(breaker, { live, open }, now, trigger));
    }
    return out;
  }

  private async evaluateOne(
    breaker: BreakerEntity,
    counts: { live: number; open: number },
    now: number,
    trigger: EvaluationTrigger,
  ): Promise<Evaluated> {
    if (breaker.state !== 'closed') return { breaker, quorum: breaker.quorum };
    const group = (await this.groups.get(breaker.group)) ?? (await this.groups.seen(breaker.group, now));
    const quorum = figuresFromCounts(counts, group.quorum);
    const pool = await this.pools.resolve(breaker.dependency);
    if (!this.mayOpen(breaker, quorum, group, pool, now)) return { breaker, quorum };

    let decided: QuorumDecision | null = null;
    const outcome = await this.breakers.transition(breaker.id, async (state, { now: at, manager }) => {
      if (state.state !== 'closed') return null;
      const rows = await this.verdicts.rows(breaker.id, at - this.config.heartbeatTtlMs, manager);
      decided = this.decide(rows, group, at);
      const d = onQuorum(state, decided, at, pool, mathRng);
      return { ...d, quorum: figures(decided), formedBy: decided.formedBy, figures: { trigger } };
    });
    const after = outcome.breaker;
    const shown = after.state === 'closed' ? (decided ? figures(decided) : quorum) : after.quorum;
    return { breaker: after, quorum: shown };
  }

  /**
   * A cheap filter so most heartbeats take no lock and read no rows. Every rule in it is core's (threshold,
   * learning period, an operator's quiet period): core, fed the live counts, would open the breaker now.
   */
  private mayOpen(
    breaker: BreakerEntity,
    quorum: QuorumFiguresWire,
    group: GroupView,
    pool: PoolConfig,
    now: number,
  ): boolean {
    if (quorum.open < quorum.threshold || this.decide([], group, now).learning) return false;
    return (
      onQuorum(breaker.globalState, { ...quorum, reached: true }, now, pool, mathRng).transitions.length > 0
    );
  }

  /** What the periodic job runs: every closed breaker with live trouble, evaluated once. */
  async evaluateAll(): Promise<number> {
    const since = Date.now() - this.config.heartbeatTtlMs;
    const evaluated = await this.evaluateMany(await this.verdicts.breakersWithLiveTrouble(since), 'periodic');
    return [...evaluated.values()].filter((e) => e.breaker.state !== 'closed').length;
  }
}

/** The figures of a CLOSED breaker from its live counts: K from core's quorumThreshold. */
export function figuresFromCounts(counts: LiveCounts, policy: QuorumPolicy): QuorumFiguresWire {
  return { open: counts.open, live: counts.live, threshold: quorumThreshold(counts.live, policy) };
}

export function figures(d: Pick<QuorumDecision, 'open' | 'live' | 'threshold'>): QuorumFiguresWire {
  return { open: d.open, live: d.live, threshold: d.threshold };
}
