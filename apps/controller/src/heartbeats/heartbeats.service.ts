import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type BreakerPlan, buildPlan, type HeartbeatResponse } from '@recloser/core';
import { Repository } from 'typeorm';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { QuorumEvaluationService } from '../breakers/quorum-evaluation.service.js';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { RecoveryPlanService } from '../ramp/recovery-plan.service.js';
import { countHeartbeat } from '../telemetry/controller-metrics.js';
import { type HeartbeatDto, toHeartbeatRequest } from './dto/heartbeat.dto.js';
import { InstanceEntity } from './instance.entity.js';

/**
 * One heartbeat: presence, one verdict per breaker, quorum evaluation, and the plan back.
 * Everything is validated before anything is written (a refused heartbeat changes nothing).
 */
@Injectable()
export class HeartbeatsService {
  constructor(
    @InjectRepository(InstanceEntity) private readonly instances: Repository<InstanceEntity>,
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
    const { instanceId, group, region } = heartbeat;
    await this.groups.seen(group, now);
    await this.instances
      .createQueryBuilder()
      .insert()
      .values({ group, instanceId, region, firstSeenAt: new Date(now), lastSeenAt: new Date(now) })
      .orUpdate(['region', 'last_seen_at'], ['group_name', 'instance_id'])
      .execute();

    const plans: BreakerPlan[] = [];
    for (const verdict of heartbeat.breakers) {
      const pool = await this.pools.resolve(verdict.dependency);
      const stored = await this.breakers.getOrCreate(group, verdict.dependency, pool.id, now);
      await this.verdicts.upsert(stored.id, instanceId, region, verdict, now, this.config.heartbeatTtlMs);
      const { breaker, quorum } = await this.quorum.evaluate(stored, 'heartbeat');
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
      );
      plans.push(
        buildPlan({
          breakerId: breaker.id,
          dependency: breaker.dependency,
          global: g,
          quorum,
          pool,
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
