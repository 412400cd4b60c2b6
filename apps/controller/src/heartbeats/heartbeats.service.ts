import { BadRequestException, Injectable } from '@nestjs/common';
import { type BreakerPlan, buildPlan, type HeartbeatResponse, type PoolConfig } from '@recloser/core';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { QuorumEvaluationService } from '../breakers/quorum-evaluation.service.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { RecoveryPlanService } from '../ramp/recovery-plan.service.js';
import { countHeartbeat } from '../telemetry/controller-metrics.js';
import { type HeartbeatDto, toHeartbeatRequest } from './dto/heartbeat.dto.js';

/**
 * One heartbeat: presence, one verdict per breaker, quorum evaluation, and the plan back.
 * Everything is validated before anything is written (a refused heartbeat changes nothing).
 */
@Injectable()
export class HeartbeatsService {
  constructor(
    private readonly config: ControllerConfig,
    private readonly groups: FleetGroupsService,
    private readonly pools: PoolsService,
    private readonly breakers: BreakerStateService,
    private readonly verdicts: VerdictsRepository,
    private readonly quorum: QuorumEvaluationService,
    private readonly recovery: RecoveryPlanService,
  ) {}

  async record(dto: HeartbeatDto): Promise<HeartbeatResponse> {
    const heartbeat = toHeartbeatRequest(dto);
    const seen = new Set<string>();
    for (const [i, b] of heartbeat.breakers.entries()) {
      if (seen.has(b.dependency))
        throw new BadRequestException(`breakers.${i}.dependency "${b.dependency}" appears more than once`);
      seen.add(b.dependency);
    }

    const now = Date.now();
    const { instanceId, group } = heartbeat;
    await this.groups.seen(group, now);
    const pools = new Map<string, PoolConfig>();
    for (const v of heartbeat.breakers) pools.set(v.dependency, await this.pools.resolve(v.dependency));

    const wanted = heartbeat.breakers.map((v) => ({
      dependency: v.dependency,
      poolId: pools.get(v.dependency)!.id,
    }));
    const ids = await this.breakers.idsFor(group, wanted, now);
    const verdicts = heartbeat.breakers.map((verdict) => ({
      breakerId: ids.get(verdict.dependency)!,
      verdict,
    }));
    await this.verdicts.recordHeartbeat(heartbeat, verdicts, now, this.config.heartbeatTtlMs);
    const evaluated = await this.quorum.evaluateMany([...ids.values()], 'heartbeat');

    const plans: BreakerPlan[] = [];
    for (const verdict of heartbeat.breakers) {
      const { breaker, quorum } = evaluated.get(ids.get(verdict.dependency)!)!;
      const g = breaker.globalState;
      const recovery = await this.recovery.planFor(
        {
          breakerId: breaker.id,
          dependency: breaker.dependency,
          state: g.state,
          epoch: g.epoch,
          step: g.step,
          stepSince: g.stepSince,
        },
        instanceId,
        verdict,
        now,
      );
      plans.push(
        buildPlan({
          breakerId: breaker.id,
          dependency: breaker.dependency,
          global: g,
          quorum,
          pool: pools.get(verdict.dependency)!,
          allowance: recovery.allowance,
          probe: recovery.probe,
          validForMs: recovery.validForMs,
        }),
      );
    }
    countHeartbeat();
    return {
      serverTime: new Date(now).toISOString(),
      heartbeatIntervalMs: this.config.heartbeatIntervalMs,
      leaseTtlMs: this.config.heartbeatTtlMs,
      breakers: plans,
    };
  }
}
