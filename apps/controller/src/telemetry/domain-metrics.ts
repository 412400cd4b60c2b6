import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  type BatchObservableCallback,
  metrics,
  type Observable,
  type ObservableGauge,
} from '@opentelemetry/api';
import { type BreakerScope, currentLevel, formatScope, type GlobalState, stepBudget } from '@recloser/core';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakersService } from '../breakers/breakers.service.js';
import { PAGE_MAX } from '../common/paging.js';
import { ControllerConfig } from '../config/controller-config.js';
import { PoolsService } from '../pools/pools.service.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

/** numeric value of recloser_breaker_state */
export const STATE_CODE: Record<GlobalState, number> = { closed: 0, open: 1, probing: 2, ramping: 3 };
/** per-breaker series cover at most this many breakers (non-closed first): the labels stay bounded */
export const METRICS_MAX_BREAKERS = PAGE_MAX;

const meter = () => metrics.getMeter('recloser-controller');

/**
 * The domain's gauges, read from Postgres and Redis when /metrics is scraped (so every replica
 * reports the fleet's state, not what it happened to handle), and the heartbeat handling latency.
 * Labels are bounded: state, class, and (group, dependency, scope) of at most METRICS_MAX_BREAKERS
 * breakers. Counters of events live beside the code that sees them (controller-metrics.ts).
 */
@Injectable()
export class DomainMetrics implements OnModuleInit, OnModuleDestroy {
  private gauges: ObservableGauge[] = [];
  private callback: BatchObservableCallback | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly breakers: BreakersService,
    private readonly state: BreakerStateService,
    private readonly pools: PoolsService,
    private readonly config: ControllerConfig,
    private readonly http: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const m = meter();
    const byState = m.createObservableGauge('recloser_breakers', {
      description: 'breakers (not archived) by global state',
    });
    const state = m.createObservableGauge('recloser_breaker_state', {
      description: 'global state of a breaker: 0 closed, 1 open, 2 probing, 3 ramping',
    });
    const live = m.createObservableGauge('recloser_breaker_live_instances', {
      description: 'instances with a fresh heartbeat reporting on the breaker',
    });
    const open = m.createObservableGauge('recloser_breaker_open_instances', {
      description: 'live instances locally open on the breaker',
    });
    const threshold = m.createObservableGauge('recloser_breaker_quorum_threshold', {
      description: 'locally open instances that open the breaker (K = max(minOpen, ceil(fraction x live)))',
    });
    const step = m.createObservableGauge('recloser_breaker_ramp_step', {
      description: 'ramp step of a RAMPING breaker (0-based)',
    });
    const admitted = m.createObservableGauge('recloser_breaker_admitted_rate', {
      description: 'requests/s the current ramp step admits, per traffic class (RAMPING breakers)',
    });
    const isolated = m.createObservableGauge('recloser_isolated_instances', {
      description: 'instances locally open while their group is closed (announced bad nodes), per breaker',
    });
    this.gauges = [byState, state, live, open, threshold, step, admitted, isolated];
    this.callback = async (obs) => {
      await this.observe(obs, { byState, state, live, open, threshold, step, admitted, isolated });
    };
    m.addBatchObservableCallback(this.callback, this.gauges as Observable[]);

    const latency = m.createHistogram('recloser_heartbeat_duration', {
      description: 'time to handle POST /v1/heartbeats, ms',
      unit: 'ms',
      advice: { explicitBucketBoundaries: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
    });
    const fastify = this.http.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook('onResponse', async (request, reply) => {
      if (request.routeOptions.url === '/v1/heartbeats' && request.method === 'POST')
        latency.record(reply.elapsedTime, { status: String(Math.floor(reply.statusCode / 100)) + 'xx' });
    });
  }

  onModuleDestroy(): void {
    if (this.callback) meter().removeBatchObservableCallback(this.callback, this.gauges as Observable[]);
    this.callback = null;
  }

  private async observe(
    obs: Parameters<BatchObservableCallback>[0],
    g: Record<
      'byState' | 'state' | 'live' | 'open' | 'threshold' | 'step' | 'admitted' | 'isolated',
      ObservableGauge
    >,
  ): Promise<void> {
    // the breakers most worth a series first: not closed, then the rest, up to the bound
    const ids = (
      (await this.db.query(
        `SELECT id FROM breakers WHERE archived_at IS NULL
          ORDER BY (state = 'closed'), group_name, dependency, scope_kind, scope_value LIMIT $1`,
        [METRICS_MAX_BREAKERS],
      )) as { id: string }[]
    ).map((r) => r.id);
    const entities = await this.state.getMany(ids);
    // Count the breakers with a series from the very rows their series come from, and only the
    // rest by query: a breaker that moves between two reads is then never state=open in its own
    // series while the open count leaves it out.
    const rest = (await this.db.query(
      `SELECT state, count(*)::int AS n FROM breakers WHERE archived_at IS NULL AND id <> ALL($1::uuid[])
        GROUP BY state`,
      [entities.map((e) => e.id)],
    )) as { state: GlobalState; n: number }[];
    for (const s of Object.keys(STATE_CODE) as GlobalState[]) {
      const n = (rest.find((c) => c.state === s)?.n ?? 0) + entities.filter((e) => e.state === s).length;
      obs.observe(g.byState, n, { state: s });
    }
    if (entities.length === 0) return;
    const rows = await this.breakers.summariseWithCounts(entities);
    const pipeline = this.redis.pipeline();
    for (const { summary } of rows)
      pipeline.scard(`${this.config.redisPrefix}:watch:${summary.breakerId}:isolated`);
    const isolated = ((await pipeline.exec()) ?? []).map(([err, n]) => (err ? 0 : Number(n)));
    for (const [i, { summary, counts: c }] of rows.entries()) {
      const entity = entities.find((e) => e.id === summary.breakerId)!;
      const labels = {
        group: summary.group,
        dependency: summary.dependency,
        scope: formatScope({ kind: entity.scopeKind, value: entity.scopeValue } as BreakerScope),
      };
      obs.observe(g.state, STATE_CODE[summary.state], labels);
      obs.observe(g.live, c.live, labels);
      obs.observe(g.open, c.open, labels);
      obs.observe(g.threshold, summary.quorum.threshold, labels);
      obs.observe(g.isolated, isolated[i] ?? 0, labels);
      if (summary.state === 'ramping' && summary.step !== null) {
        obs.observe(g.step, summary.step, labels);
        const pool = await this.pools.resolve(summary.dependency, summary.group);
        const level = currentLevel(entity.globalState, pool) ?? 0;
        for (const [cls, budget] of Object.entries(stepBudget(pool, { step: summary.step, level })))
          obs.observe(g.admitted, budget.ratePerSec, { ...labels, class: cls });
      }
    }
  }
}
