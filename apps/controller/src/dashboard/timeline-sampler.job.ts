import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type Clock, currentLevel, explainGates, REPORTED_STATES, isLocallyOpen } from '@recloser/core';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakersService } from '../breakers/breakers.service.js';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { PoolsService } from '../pools/pools.service.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { RampEvidenceStore } from '../ramp/ramp-evidence.store.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';
import { admittedIn, type TimelinePoint } from './timeline.js';

/** breakers sampled per run: not CLOSED, or CLOSED with live locally open instances */
export const SAMPLED_BREAKERS = 200;
/** points kept per breaker (a day at one every few seconds is more than any chart shows) */
export const SAMPLES_KEPT = 2000;
export const SAMPLES_TTL_MS = 24 * 3_600_000;
const LOCALLY_OPEN_STATES = REPORTED_STATES.filter(isLocallyOpen);

export const timelineKey = (prefix: string, breakerId: string): string => `${prefix}:timeline:${breakerId}`;

/**
 * The dashboard's time series between transitions: every few heartbeat intervals (one runner across
 * replicas), a point per breaker in trouble — quorum figures, the ramp step's sample (success rate and
 * p95 judged by core explainGates) and the admitted rate per class — in a capped Redis list.
 */
@Injectable()
@JobHandler(JobName.SampleTimeline)
export class TimelineSamplerJob implements JobHandlerInstance, OnApplicationBootstrap {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly config: ControllerConfig,
    private readonly queues: QueueService,
    private readonly state: BreakerStateService,
    private readonly breakers: BreakersService,
    private readonly pools: PoolsService,
    private readonly evidence: RampEvidenceStore,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.SampleTimeline, Math.max(1000, 2 * this.config.heartbeatIntervalMs));
  }

  async handle(): Promise<{ sampled: number }> {
    const now = this.clock.now();
    const rows = (await this.db.query(
      `SELECT b.id FROM breakers b WHERE b.archived_at IS NULL AND (b.state <> 'closed' OR EXISTS (
         SELECT 1 FROM verdicts v WHERE v.breaker_id = b.id AND v.reported_at > $1 AND v.state = ANY($2)))
       ORDER BY b.id LIMIT $3`,
      [new Date(now - this.config.heartbeatTtlMs), LOCALLY_OPEN_STATES, SAMPLED_BREAKERS],
    )) as { id: string }[];
    if (rows.length === 0) return { sampled: 0 };
    const entities = await this.state.getMany(rows.map((r) => r.id));
    const pipeline = this.redis.pipeline();
    for (const { summary, counts } of await this.breakers.summariseWithCounts(entities)) {
      const entity = entities.find((e) => e.id === summary.breakerId)!;
      const g = entity.globalState;
      const pool = await this.pools.resolve(entity.dependency, entity.group);
      let successRate: number | null = null;
      let latencyP95Ms: number | null = null;
      if (g.state === 'ramping' && g.step !== null && g.stepSince !== null) {
        const sample = await this.evidence.sample({
          breakerId: entity.id,
          epoch: g.epoch,
          step: g.step,
          stepSince: g.stepSince,
        });
        if (sample.attempts > 0) {
          successRate = explainGates(sample, pool.ramp.gates, pool.ramp.minSample).successRate;
          latencyP95Ms = sample.latencyP95Ms;
        }
      }
      const point: TimelinePoint = {
        at: now,
        state: summary.state,
        step: summary.step,
        open: counts.open,
        live: counts.live,
        threshold: summary.quorum.threshold,
        successRate,
        latencyP95Ms,
        probe: null,
        admitted: admittedIn(pool, summary.state, summary.step, currentLevel(entity.globalState, pool)),
      };
      const key = timelineKey(this.config.redisPrefix, entity.id);
      pipeline.lpush(key, JSON.stringify(point));
      pipeline.ltrim(key, 0, SAMPLES_KEPT - 1);
      pipeline.pexpire(key, SAMPLES_TTL_MS);
    }
    await pipeline.exec();
    return { sampled: entities.length };
  }
}
