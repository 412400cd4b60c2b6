// The ramp's clock, one runner across replicas (a BullMQ job scheduler): every second, each breaker
// that is not CLOSED gets core `onTick` — OPEN → PROBING after its cooldown, and for a RAMPING
// breaker the gate evaluation on the step's sample (step up, hold, step down, collapse → OPEN,
// CLOSED after the last step held and the live fleet's demand fits it). The gate figures (and at the
// last step the demand against the budget) go into each transition record (core puts them there).
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { fleetDemand, mathRng, onTick, type GlobalBreakerState, type RampSample } from '@recloser/core';
import { In, Repository } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakerEntity } from '../breakers/breaker.entity.js';
import { PoolsService } from '../pools/pools.service.js';
import { JobHandler, type JobHandlerInstance } from '../queues/job-handler.js';
import { JobName } from '../queues/queue.constants.js';
import { QueueService } from '../queues/queue.service.js';
import { LiveDemandRepository } from './live-demand.repository.js';
import { RampEvidenceStore, type StepKey } from './ramp-evidence.store.js';

export const RAMP_TICK_MS = 1000;
const RESCHEDULE_MS = 10_000;

@Injectable()
@JobHandler(JobName.RampTick)
export class RampTickHandler implements JobHandlerInstance, OnApplicationBootstrap, OnApplicationShutdown {
  private reschedule: NodeJS.Timeout | null = null;
  private readonly logger = new Logger(RampTickHandler.name);

  constructor(
    @InjectRepository(BreakerEntity) private readonly breakers: Repository<BreakerEntity>,
    private readonly pools: PoolsService,
    private readonly evidence: RampEvidenceStore,
    private readonly breakerState: BreakerStateService,
    private readonly queues: QueueService,
    private readonly liveDemand: LiveDemandRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queues.every(JobName.RampTick, RAMP_TICK_MS);
    // the schedule lives in Redis: if Redis loses its data, the next upsert brings it back
    this.reschedule = setInterval(() => {
      this.queues.every(JobName.RampTick, RAMP_TICK_MS).catch(() => undefined);
    }, RESCHEDULE_MS);
    this.reschedule.unref();
  }

  onApplicationShutdown(): void {
    if (this.reschedule) clearInterval(this.reschedule);
  }

  async handle(): Promise<{ breakers: number; transitions: number }> {
    const rows = await this.breakers.find({
      where: { state: In(['open', 'probing', 'ramping']) },
      select: { id: true, dependency: true, globalState: true },
    });
    let transitions = 0;
    for (const row of rows) {
      try {
        transitions += await this.tick(row);
      } catch (err) {
        // one breaker's trouble must not stall the others' ramps
        this.logger.warn(`ramp tick of breaker ${row.id}: ${(err as Error).message}`);
      }
    }
    return { breakers: rows.length, transitions };
  }

  private async tick(row: Pick<BreakerEntity, 'id' | 'dependency' | 'globalState'>): Promise<number> {
    const pool = await this.pools.resolve(row.dependency);
    const seen = stepKeyOf(row.id, row.globalState);
    const sample = seen ? await this.evidence.sample(seen) : undefined;
    // what the live fleet wants (backlog included): the last step closes only when it fits
    const demand = seen ? fleetDemand(await this.liveDemand.live(row.id)) : undefined;
    const result = await this.breakerState.transition(row.id, (state, ctx) => {
      const current = stepKeyOf(row.id, state);
      // the sample belongs to the step read above; if the breaker moved since, judge nothing this tick
      const sampleNow: RampSample | undefined =
        current && seen && sameStep(current, seen) ? sample : undefined;
      return onTick(state, {
        now: ctx.now,
        rng: mathRng,
        pool,
        ...(sampleNow ? { sample: sampleNow } : {}),
        ...(sampleNow && demand ? { demand } : {}),
      });
    });
    return result.transitions.length;
  }
}

function stepKeyOf(breakerId: string, s: GlobalBreakerState): StepKey | null {
  if (s.state !== 'ramping' || s.step === null || s.stepSince === null) return null;
  return { breakerId, epoch: s.epoch, step: s.step, stepSince: s.stepSince };
}

function sameStep(a: StepKey, b: StepKey): boolean {
  return a.epoch === b.epoch && a.step === b.step && a.stepSince === b.stepSince;
}
