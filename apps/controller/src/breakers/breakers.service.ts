import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type BreakerSummary, DEFAULT_QUORUM, evaluateQuorum, type QuorumFiguresWire } from '@recloser/core';
import { In, Repository } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { BreakerEntity } from './breaker.entity.js';
import { figures } from './quorum-evaluation.service.js';
import { VerdictsRepository, type VerdictRow } from './verdicts.repository.js';

/** Read views of breakers in the API.md shape. */
@Injectable()
export class BreakersService {
  constructor(
    @InjectRepository(BreakerEntity) private readonly breakers: Repository<BreakerEntity>,
    private readonly verdicts: VerdictsRepository,
    private readonly groups: FleetGroupsService,
    private readonly pools: PoolsService,
    private readonly config: ControllerConfig,
  ) {}

  async list(groups: readonly string[]): Promise<BreakerSummary[]> {
    const rows = await this.breakers.find({
      where: { group: In([...groups]) },
      order: { group: 'ASC', dependency: 'ASC' },
    });
    return this.summarise(rows);
  }

  async all(): Promise<BreakerSummary[]> {
    return this.summarise(await this.breakers.find({ order: { group: 'ASC', dependency: 'ASC' } }));
  }

  async summarise(rows: BreakerEntity[]): Promise<BreakerSummary[]> {
    const now = Date.now();
    const live = await this.verdicts.rowsByBreaker(
      rows.map((b) => b.id),
      now - this.config.heartbeatTtlMs,
    );
    const policies = new Map((await this.groups.all()).map((g) => [g.group, g.quorum]));
    return Promise.all(
      rows.map(async (b) => {
        const pool = await this.pools.resolve(b.dependency);
        const quorum =
          b.state === 'closed'
            ? this.liveFigures(live.get(b.id) ?? [], policies.get(b.group), now)
            : b.quorum;
        return toSummary(b, pool.id, pool.ramp.steps.length, quorum);
      }),
    );
  }

  /** The quorum figures right now (a CLOSED breaker shows how close it is to opening). */
  liveFigures(rows: VerdictRow[], policy = DEFAULT_QUORUM, now = Date.now()): QuorumFiguresWire {
    return figures(
      evaluateQuorum(rows, { now, heartbeatTtlMs: this.config.heartbeatTtlMs, policy, learningUntil: now }),
    );
  }
}

export function toSummary(
  b: BreakerEntity,
  pool: string,
  steps: number,
  quorum: QuorumFiguresWire,
): BreakerSummary {
  return {
    breakerId: b.id,
    group: b.group,
    dependency: b.dependency,
    region: b.region,
    pool,
    state: b.state,
    epoch: b.epoch,
    quorum,
    step: b.globalState.step,
    steps,
  };
}
