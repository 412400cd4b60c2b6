import { Injectable } from '@nestjs/common';
import {
  evaluateQuorum,
  mathRng,
  onQuorum,
  type QuorumDecision,
  type QuorumFiguresWire,
  type QuorumRow,
} from '@recloser/core';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService, type GroupView } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import type { BreakerEntity } from './breaker.entity.js';
import { BreakerStateService } from './breaker-state.service.js';
import { VerdictsRepository } from './verdicts.repository.js';

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

  async evaluate(breaker: BreakerEntity, trigger: EvaluationTrigger): Promise<Evaluated> {
    if (breaker.state !== 'closed') return { breaker, quorum: breaker.quorum };
    const now = Date.now();
    const group = (await this.groups.get(breaker.group)) ?? (await this.groups.seen(breaker.group, now));
    const rows = await this.verdicts.rows(breaker.id, now - this.config.heartbeatTtlMs);
    const decision = this.decide(rows, group, now);
    if (!decision.reached) return { breaker, quorum: figures(decision) };

    // reached on a read without the lock: decide again under it, on what is stored then
    const pool = await this.pools.resolve(breaker.dependency);
    let locked: QuorumDecision = decision;
    const outcome = await this.breakers.transition(breaker.id, async (state, { now: at, manager }) => {
      if (state.state !== 'closed') return null;
      const current = await this.verdicts.rows(breaker.id, at - this.config.heartbeatTtlMs, manager);
      locked = this.decide(current, group, at);
      const d = onQuorum(state, locked, at, pool, mathRng);
      return { ...d, quorum: figures(locked), formedBy: locked.formedBy, figures: { trigger } };
    });
    const after = outcome.breaker;
    return { breaker: after, quorum: after.state === 'closed' ? figures(locked) : after.quorum };
  }

  /** What the periodic job runs: every closed breaker with live trouble, evaluated once. */
  async evaluateAll(): Promise<number> {
    const since = Date.now() - this.config.heartbeatTtlMs;
    let opened = 0;
    for (const id of await this.verdicts.breakersWithLiveTrouble(since)) {
      const breaker = await this.breakers.get(id).catch(() => null);
      if (!breaker) continue;
      const { breaker: after } = await this.evaluate(breaker, 'periodic');
      if (after.state !== 'closed') opened += 1;
    }
    return opened;
  }
}

export function figures(d: Pick<QuorumDecision, 'open' | 'live' | 'threshold'>): QuorumFiguresWire {
  return { open: d.open, live: d.live, threshold: d.threshold };
}
