import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ControlPlane, type VerdictRow } from '@recloser/control';
import {
  type Clock,
  currentLevel,
  DEFAULT_QUORUM,
  defaultPoolId,
  isLive,
  type PoolConfig,
  type ReportedState,
  roundTo,
} from '@recloser/core';
import { DataSource } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakersService } from '../breakers/breakers.service.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { decodeCursor, encodeCursor, PAGE_DEFAULT } from '../common/paging.js';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { TransitionsService } from '../transitions/transitions.service.js';
import { ProbeLeaseStore } from '../probes/probe-lease.store.js';
import { RedisWatchStore } from '../control/watch.store.js';
import { RegionShiftsStore } from '../control/region-shifts.store.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import type { Redis } from 'ioredis';
import type { InstancesQuery } from './dto/dashboard.dto.js';
import { timelineOf, type TimelinePoint } from './timeline.js';
import { timelineKey } from './timeline-sampler.job.js';

const TIMELINE_TRANSITIONS = 500;
/** breakers and pools one extras call covers */
export const EXTRAS_MAX = 1000;

export interface InstanceRowView {
  instanceId: string;
  region: string;
  state: string;
  live: boolean;
  lastSeenAt: string;
  openSince: string | null;
  evidence: unknown;
  isolated: boolean;
}

/** What the dashboard reads beyond the admin API: a breaker's timeline and its instances, filtered. */
@Injectable()
export class DashboardService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: ControllerConfig,
    private readonly state: BreakerStateService,
    private readonly breakers: BreakersService,
    private readonly pools: PoolsService,
    private readonly groups: FleetGroupsService,
    private readonly transitions: TransitionsService,
    private readonly verdicts: VerdictsRepository,
    private readonly plane: ControlPlane,
    private readonly leases: ProbeLeaseStore,
    private readonly watches: RedisWatchStore,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
    private readonly shifts: RegionShiftsStore,
  ) {}

  async timeline(id: string): Promise<{ points: TimelinePoint[]; steps: number[]; classes: string[] }> {
    const entity = await this.state.require(id);
    const [{ summary, counts }] = (await this.breakers.summariseWithCounts([entity])) as [
      Awaited<ReturnType<BreakersService['summariseWithCounts']>>[number],
    ];
    const pool = await this.pools.resolve(entity.dependency, entity.group);
    const log = await this.transitions.list(id, TIMELINE_TRANSITIONS);
    const samples = (await this.redis.lrange(timelineKey(this.config.redisPrefix, id), 0, -1)).map(
      (s) => JSON.parse(s) as TimelinePoint,
    );
    const points = timelineOf(
      pool,
      log,
      {
        at: this.clock.now(),
        state: summary.state,
        step: summary.step,
        level: currentLevel(entity.globalState, pool),
        open: counts.open,
        live: counts.live,
        threshold: summary.quorum.threshold,
      },
      samples,
    );
    return { points, steps: pool.ramp.steps, classes: Object.keys(pool.capacity) };
  }

  /**
   * A breaker's instances, keyset-paged by instance id and filtered in SQL (state, region, live only,
   * an id prefix): one index range per page, fast with 10,000 instances. `isolated` uses the control
   * plane's own rule (core findIsolated) over the live rows, then pages those.
   */
  async instances(
    id: string,
    q: InstancesQuery,
  ): Promise<{ instances: InstanceRowView[]; next: string | null; total: number }> {
    const entity = await this.state.require(id);
    const now = this.clock.now();
    const since = now - this.config.heartbeatTtlMs;
    const limit = q.limit ?? PAGE_DEFAULT;
    const after = decodeCursor<readonly [string]>(q.cursor, ['string']);
    const params: unknown[] = [id];
    const where = ['breaker_id = $1'];
    if (q.state) where.push(`state = $${params.push(q.state)}`);
    if (q.region) where.push(`region = $${params.push(q.region)}`);
    if (q.live === 'true') where.push(`reported_at > $${params.push(new Date(since))}`);
    if (q.prefix)
      where.push(`instance_id LIKE $${params.push(q.prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%')}`);
    if (q.isolated === 'true') {
      const isolated = this.plane.isolatedIn(entity, await this.verdicts.rows(id, since), now);
      where.push(`instance_id = ANY($${params.push(isolated.map((i) => i.instanceId))})`);
    }
    const [{ n: total }] = (await this.db.query(
      `SELECT count(*)::int AS n FROM verdicts WHERE ${where.join(' AND ')}`,
      [...params],
    )) as [{ n: number }];
    if (after) where.push(`instance_id > $${params.push(after[0])}`);
    const rows = (await this.db.query(
      `SELECT instance_id, region, state, reported_at, open_since, evidence
         FROM verdicts WHERE ${where.join(' AND ')} ORDER BY instance_id LIMIT $${params.push(limit + 1)}`,
      params,
    )) as {
      instance_id: string;
      region: string;
      state: ReportedState;
      reported_at: Date;
      open_since: Date | null;
      evidence: unknown;
    }[];
    const page = rows.slice(0, limit);
    const quorumRows = page.map((r) => ({
      instanceId: r.instance_id,
      region: r.region,
      state: r.state,
      lastSeenAt: r.reported_at.getTime(),
      openSince: r.open_since?.getTime() ?? null,
      evidence: r.evidence as VerdictRow['evidence'],
      demand: {},
      reportedSince: null,
    }));
    const isolated = new Set(this.plane.isolatedIn(entity, quorumRows, now).map((i) => i.instanceId));
    return {
      instances: page.map((r, i) => ({
        instanceId: r.instance_id,
        region: r.region,
        state: r.state,
        live: isLive(quorumRows[i]!, now, this.config.heartbeatTtlMs),
        lastSeenAt: r.reported_at.toISOString(),
        openSince: r.open_since?.toISOString() ?? null,
        evidence: r.evidence,
        isolated: isolated.has(r.instance_id),
      })),
      next: rows.length > limit ? encodeCursor([page[page.length - 1]!.instance_id]) : null,
      total,
    };
  }

  /**
   * What the overview adds to GET /v1/admin/overview: probe tokens live per pool (the lease store's
   * zset, unexpired by the Redis clock) and isolated instances per watched breaker (the watch sets
   * the control plane announces from), and the shifts under way by their source region's breaker
   * (issue 14: mode and what each receiver may take).
   */
  async extras(poolIds: readonly string[]): Promise<{
    probesInFlight: Record<string, number>;
    isolated: Record<string, number>;
    shifts: Record<string, { mode: string; receivers: { region: string; allowedPerSec: number }[] }>;
  }> {
    const [seconds, micros] = await this.redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const watched = (await this.watches.watched()).slice(0, EXTRAS_MAX);
    const pipeline = this.redis.pipeline();
    for (const pool of poolIds) pipeline.zcount(this.leases.keys.leases(pool), `(${nowMs}`, '+inf');
    for (const id of watched) pipeline.scard(`${this.config.redisPrefix}:watch:${id}:isolated`);
    const replies = ((await pipeline.exec()) ?? []).map(([err, n]) => (err ? 0 : Number(n)));
    const probesInFlight: Record<string, number> = {};
    poolIds.forEach((pool, i) => (probesInFlight[pool] = replies[i] ?? 0));
    const isolated: Record<string, number> = {};
    watched.forEach((id, i) => {
      const n = replies[poolIds.length + i] ?? 0;
      if (n > 0) isolated[id] = n;
    });
    const shifts: Record<string, { mode: string; receivers: { region: string; allowedPerSec: number }[] }> =
      {};
    for (const r of await this.shifts.active(EXTRAS_MAX))
      shifts[r.breakerId] = {
        mode: r.mode,
        receivers: Object.entries(r.allowed)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([region, rate]) => ({ region, allowedPerSec: roundTo(rate) })),
      };
    return { probesInFlight, isolated, shifts };
  }

  /** The pool a breaker draws on as the control plane resolves it (its defaults when none is configured). */
  async poolOf(id: string): Promise<PoolConfig & { configured: boolean }> {
    const entity = await this.state.require(id);
    const pool = await this.pools.resolve(entity.dependency, entity.group);
    return { ...pool, configured: pool.id !== defaultPoolId(entity.dependency) };
  }

  /** A group's quorum policy as stored (or the default), for the edit form. */
  async quorumOf(group: string): Promise<{ fraction: number; minOpen: number }> {
    return (await this.groups.get(group))?.quorum ?? DEFAULT_QUORUM;
  }
}
