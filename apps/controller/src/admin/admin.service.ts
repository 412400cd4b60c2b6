import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ControlPlane } from '@recloser/control';
import {
  type BreakerSummary,
  type Clock,
  DEFAULT_QUORUM,
  type GlobalBreakerState,
  type GlobalState,
  isLocallyOpen,
  REPORTED_STATES,
  type IsolatedInstance,
  isLive,
  type OperatorAction,
  type QuorumPolicy,
} from '@recloser/core';
import type { StoredTransition } from '../breakers/breaker-state.service.js';
import { decodeCursor, PAGE_DEFAULT, pageOf, type PageQuery } from '../common/paging.js';
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
  /** cursor of the instance list's next page */
  next: string | null;
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
  /** cursor of the breaker list's next page */
  next: string | null;
}

const RECENT_TRANSITIONS = 50;
/** the reported states core counts as locally open, for the SQL total */
const LOCALLY_OPEN_STATES = REPORTED_STATES.filter(isLocallyOpen);

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

  /** Totals and pools over every breaker (aggregated in SQL); the breaker list one page at a time. */
  async overview(page: PageQuery = {}): Promise<Overview> {
    const now = this.clock.now();
    const since = new Date(now - this.config.heartbeatTtlMs);
    const [listed, groups, configured, byStateRows, byDependency, openRows] = await Promise.all([
      this.breakers.pageWithCounts(page),
      this.groups.listed(),
      this.pools.list(),
      this.db.query<{ state: GlobalState; n: number }[]>(
        'SELECT state, count(*)::int AS n FROM breakers WHERE archived_at IS NULL GROUP BY state',
      ),
      this.db.query<{ dependency: string; n: number }[]>(
        `SELECT dependency, count(*)::int AS n FROM breakers WHERE archived_at IS NULL
         GROUP BY dependency ORDER BY dependency`,
      ),
      this.db.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM verdicts v JOIN breakers b ON b.id = v.breaker_id
         WHERE b.archived_at IS NULL AND v.reported_at > $1 AND v.state = ANY($2)`,
        [since, LOCALLY_OPEN_STATES],
      ),
    ]);
    const breakers = listed.rows.map(({ summary, counts }) => ({
      ...summary,
      live: counts.live,
      open: counts.open,
    }));
    const byState = { closed: 0, open: 0, probing: 0, ramping: 0 };
    for (const r of byStateRows) byState[r.state] += r.n;
    const pools = new Map<string, Overview['pools'][number]>();
    for (const p of configured)
      pools.set(p.id, { id: p.id, configured: true, dependencies: p.dependencies, breakers: 0 });
    // one resolution per dependency (not per breaker): the pool every summary would name
    for (const { dependency, n } of byDependency) {
      const id = (await this.pools.resolve(dependency)).id;
      const pool = pools.get(id) ?? { id, configured: false, dependencies: [dependency], breakers: 0 };
      pool.breakers += n;
      pools.set(id, pool);
    }
    return {
      serverTime: new Date(now).toISOString(),
      totals: {
        breakers: Object.values(byState).reduce((a, b) => a + b, 0),
        byState,
        liveInstances: await this.liveInstances(now),
        openInstances: openRows[0]?.n ?? 0,
      },
      pools: [...pools.values()],
      groups: groups.map((g) => ({
        group: g.group,
        quorum: g.quorum,
        firstSeenAt: new Date(g.firstSeenAt).toISOString(),
      })),
      breakers,
      next: listed.next,
    };
  }

  async breaker(id: string, page: PageQuery = {}): Promise<BreakerDetail> {
    const now = this.clock.now();
    const limit = page.limit ?? PAGE_DEFAULT;
    const after = decodeCursor<readonly [string]>(page.cursor, ['string']);
    const entity = await this.state.require(id);
    const [summary] = await this.breakers.summarise([entity]);
    const group = await this.groups.get(entity.group);
    // only live verdicts can be isolated; the instance list (live or not) is paged
    const isolated = this.plane.isolatedIn(
      entity,
      await this.verdicts.rows(id, now - this.config.heartbeatTtlMs),
      now,
    );
    const { rows, next } = pageOf(await this.verdicts.page(id, after?.[0] ?? null, limit + 1), limit, (r) => [
      r.instanceId,
    ]);
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
        ...(r.routed ? { routed: r.routed } : {}),
      })),
      next,
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
