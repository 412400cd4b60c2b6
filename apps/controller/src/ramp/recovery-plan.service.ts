// The recovery part of an instance's plan: a probe token while the breaker is PROBING (for the
// instances core `designateProbers` picks, drawn from the same Redis budget as POST /v1/probes/lease),
// an allowance while it is RAMPING (core `divideAllowances` over the live instances' demand, divided
// once per allowance period and shared through Redis: AllowanceDivisionCache). The heartbeat service
// calls `planFor` once per breaker of a heartbeat.
import { Injectable, Logger } from '@nestjs/common';
import {
  designateProbers,
  divideAllowances,
  instanceDemand,
  type BreakerVerdict,
  type ClassAllowance,
  type GlobalState,
  type ProbeGrant,
  type TrafficClass,
} from '@recloser/core';
import { ControllerConfig } from '../config/controller-config.js';
import { PoolsService } from '../pools/pools.service.js';
import { ProbeLeaseStore } from '../probes/probe-lease.store.js';
import { AllowanceDivisionCache } from './allowance-division.cache.js';
import { LiveDemandRepository, type LiveDemand } from './live-demand.repository.js';
import { RampEvidenceStore } from './ramp-evidence.store.js';

/** The breaker as the heartbeat saw it (after its own transition, if any). */
export interface PlanBreaker {
  breakerId: string;
  dependency: string;
  state: GlobalState;
  epoch: number;
  step: number | null;
  stepSince: number | null;
}

/** The recovery fields of core `buildPlan`'s input. */
export interface RecoveryPlan {
  probe: ProbeGrant | null;
  /** this instance's share of the current step; `{}` when not admitted this period */
  allowance: Record<TrafficClass, ClassAllowance> | null;
  /** how long the allowance holds if no newer plan arrives */
  validForMs: number;
}

@Injectable()
export class RecoveryPlanService {
  private readonly logger = new Logger(RecoveryPlanService.name);

  constructor(
    private readonly pools: PoolsService,
    private readonly leases: ProbeLeaseStore,
    private readonly liveDemand: LiveDemandRepository,
    private readonly evidence: RampEvidenceStore,
    private readonly config: ControllerConfig,
    private readonly divisions: AllowanceDivisionCache,
  ) {}

  /** `receivedAt`: when the heartbeat arrived (before the breaker was read), for the step evidence rule. */
  async planFor(
    breaker: PlanBreaker,
    instanceId: string,
    verdict: BreakerVerdict,
    receivedAt = Date.now(),
  ): Promise<RecoveryPlan> {
    const validForMs = this.config.heartbeatTtlMs;
    const nothing: RecoveryPlan = { probe: null, allowance: null, validForMs };
    if (breaker.state !== 'probing' && breaker.state !== 'ramping') return nothing;
    try {
      return breaker.state === 'probing'
        ? { ...nothing, probe: await this.probeFor(breaker, instanceId, verdict) }
        : {
            ...nothing,
            allowance: await this.allowanceFor(breaker, instanceId, verdict, validForMs, receivedAt),
          };
    } catch (err) {
      // the plan without recovery figures is still a plan: the instance is paused (or admits nothing) and asks again
      this.logger.warn(`recovery plan for ${breaker.breakerId}/${instanceId}: ${(err as Error).message}`);
      return nothing;
    }
  }

  private async probeFor(
    breaker: PlanBreaker,
    instanceId: string,
    verdict: BreakerVerdict,
  ): Promise<ProbeGrant | null> {
    const pool = await this.pools.resolve(breaker.dependency);
    const live = withCurrent(await this.liveDemand.live(breaker.breakerId), instanceId, verdict);
    const excluded = new Set(await this.leases.excluded(breaker.breakerId, breaker.epoch));
    const candidates = live.map((l) => ({
      instanceId: l.instanceId,
      live: true,
      demand: instanceDemand(l.demand),
      excluded: excluded.has(l.instanceId),
    }));
    const designated = designateProbers(candidates, pool.probe.concurrency, breaker.epoch).includes(
      instanceId,
    );
    const request = {
      pool: pool.id,
      budget: pool.probe,
      breakerId: breaker.breakerId,
      instanceId,
      epoch: breaker.epoch,
    };
    const got = designated ? await this.leases.grant(request) : await this.leases.held(request);
    return got.kind === 'granted' || got.kind === 'held'
      ? { token: got.token, fencing: got.fencing, validForMs: got.validForMs }
      : null;
  }

  private async allowanceFor(
    breaker: PlanBreaker,
    instanceId: string,
    verdict: BreakerVerdict,
    validForMs: number,
    receivedAt: number,
  ): Promise<RecoveryPlan['allowance']> {
    if (breaker.step === null) return {};
    if (breaker.stepSince !== null) {
      // counted only if this window ran wholly under the step (core countsTowardStep)
      await this.evidence.add(
        {
          breakerId: breaker.breakerId,
          epoch: breaker.epoch,
          step: breaker.step,
          stepSince: breaker.stepSince,
        },
        { instanceId, at: receivedAt },
        verdict.evidence,
      );
    }
    // rotate who is admitted once per validity period, so small steps reach every instance in turn
    const rotation = Math.floor(receivedAt / validForMs);
    const period = { breakerId: breaker.breakerId, epoch: breaker.epoch, step: breaker.step, rotation };
    const step = breaker.step;
    // only the period's first heartbeat reads the fleet's demand and divides (see the cache)
    return this.divisions.allowanceOf(period, instanceId, validForMs, async () => {
      const pool = await this.pools.resolve(breaker.dependency);
      const live = withCurrent(await this.liveDemand.live(breaker.breakerId), instanceId, verdict);
      return divideAllowances(pool, step, live, rotation);
    });
  }
}

/** The live set with this heartbeat's own demand, which may be newer than the cached rows. */
function withCurrent(live: LiveDemand[], instanceId: string, verdict: BreakerVerdict): LiveDemand[] {
  const own: LiveDemand = { instanceId, demand: { ...(verdict.demand ?? {}) } };
  return [...live.filter((l) => l.instanceId !== instanceId), own];
}
