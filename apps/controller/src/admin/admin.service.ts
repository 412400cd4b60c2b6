import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ControlPlane } from '@recloser/control';
import {
  type BreakerSummary,
  type Clock,
  DEFAULT_QUORUM,
  type GlobalBreakerState,
  type IsolatedInstance,
  isLive,
  type OperatorAction,
  type QuorumPolicy,
} from '@recloser/core';
import type { StoredTransition } from '../breakers/breaker-state.service.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { DataSource } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakersService } from '../breakers/breakers.service.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { type TransitionView, TransitionsService, toView } from '../transitions/transitions.service.js';
import type { ChainCheck } from '../transitions/transition-chain.js';

export interface InstanceVerdictView {
  instanceId: string;
  region: string;
  state: string;
  live: boolean;
  lastSeenAt: string;
  openSince: string | null;
  reportedSince: string | null;
  evidence: unknown;
  demand: Record<string, number> | null;
}

export interface BreakerDetail {
  breaker: BreakerSummary;
  globalState: GlobalBreakerState;
  quorumPolicy: QuorumPolicy;
  isolationAfterMs: number;
  instances: InstanceVerdictView[];
  isolated: IsolatedInstance[];
  transitions: TransitionView[];
  chain: ChainCheck;
}

export interface Overview {
  serverTime: string;
  totals: {
    breakers: number;
    byState: Record<'closed' | 'open' | 'probing' | 'ramping', number>;
    liveInstances: number;
    openInstances: number;
  };
  pools: { id: string; configured: boolean; dependencies: string[]; breakers: number }[];
  groups: { group: string; quorum: QuorumPolicy; firstSeenAt: string }[];
  breakers: (BreakerSummary & { live: number; open: number })[];
}

const RECENT_TRANSITIONS = 50;

/** What operators see and do: every decision goes through the control plane. */
@Injectable()
export class AdminService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: ControllerConfig,
    private readonly state: BreakerStateService,
    private readonly breakers: BreakersService,
    private readonly verdicts: VerdictsRepository,
    private readonly groups: FleetGroupsService,
    private readonly pools: PoolsService,
    private readonly transitions: TransitionsService,
    private readonly plane: ControlPlane<StoredTransition>,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  async overview(): Promise<Overview> {
    const now = this.clock.now();
    const [withCounts, groups, configured] = await Promise.all([
      this.breakers.allWithCounts(),
      this.groups.all(),
      this.pools.list(),
    ]);
    const breakers = withCounts.map(({ summary, counts }) => ({
      ...summary,
      live: counts.live,
      open: counts.open,
    }));
    const byState = { closed: 0, open: 0, probing: 0, ramping: 0 };
    for (const b of breakers) byState[b.state] += 1;
    const pools = new Map<string, Overview['pools'][number]>();
    for (const p of configured)
      pools.set(p.id, { id: p.id, configured: true, dependencies: p.dependencies, breakers: 0 });
    for (const b of breakers) {
      const pool = pools.get(b.pool) ?? {
        id: b.pool,
        configured: false,
        dependencies: [b.dependency],
        breakers: 0,
      };
      pool.breakers += 1;
      pools.set(b.pool, pool);
    }
    return {
      serverTime: new Date(now).toISOString(),
      totals: {
        breakers: breakers.length,
        byState,
        liveInstances: await this.liveInstances(now),
        openInstances: breakers.reduce((n, b) => n + b.open, 0),
      },
      pools: [...pools.values()],
      groups: groups.map((g) => ({
        group: g.group,
        quorum: g.quorum,
        firstSeenAt: new Date(g.firstSeenAt).toISOString(),
      })),
      breakers,
    };
  }

  async breaker(id: string): Promise<BreakerDetail> {
    const now = this.clock.now();
    const entity = await this.state.require(id);
    const [summary] = await this.breakers.summarise([entity]);
    const group = await this.groups.get(entity.group);
    const rows = await this.verdicts.rows(id, null);
    const isolated = this.plane.isolatedIn(entity, rows, now);
    return {
      breaker: summary!,
      globalState: entity.globalState,
      quorumPolicy: group?.quorum ?? DEFAULT_QUORUM,
      isolationAfterMs: this.config.isolationAfterMs,
      instances: rows.map((r) => ({
        instanceId: r.instanceId,
        region: r.region,
        state: r.state,
        live: isLive(r, now, this.config.heartbeatTtlMs),
        lastSeenAt: new Date(r.lastSeenAt).toISOString(),
        openSince: r.openSince === null ? null : new Date(r.openSince).toISOString(),
        reportedSince: r.reportedSince,
        evidence: r.evidence,
        demand: r.demand,
      })),
      isolated,
      transitions: await this.transitions.list(id, RECENT_TRANSITIONS),
      chain: await this.transitions.verify(id),
    };
  }

  async act(
    id: string,
    action: OperatorAction,
    reason: string,
  ): Promise<{ breaker: BreakerSummary; transitions: TransitionView[] }> {
    const outcome = await this.plane.operatorAction(id, action, reason);
    const [summary] = await this.breakers.summarise([outcome.breaker]);
    return { breaker: summary!, transitions: outcome.rows.map(toView) };
  }

  private async liveInstances(now: number): Promise<number> {
    const rows: { n: string }[] = await this.db.query(
      'SELECT count(*) AS n FROM instances WHERE last_seen_at > $1',
      [new Date(now - this.config.heartbeatTtlMs)],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
