import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { figuresFromCounts, type LiveCounts } from '@recloser/control';
import { type BreakerSummary, type Clock, DEFAULT_QUORUM, type QuorumFiguresWire } from '@recloser/core';
import { In, Repository } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { BreakerEntity } from './breaker.entity.js';
import { VerdictsRepository } from './verdicts.repository.js';

// a stable order: a dependency's breakers (its group's and its domains') stay together
const BY_NAME = { group: 'ASC', dependency: 'ASC', scopeKind: 'ASC', scopeValue: 'ASC' } as const;

/** Read views of breakers in the shape of docs/api.md. */
@Injectable()
export class BreakersService {
  constructor(
    @InjectRepository(BreakerEntity) private readonly breakers: Repository<BreakerEntity>,
    private readonly verdicts: VerdictsRepository,
    private readonly groups: FleetGroupsService,
    private readonly pools: PoolsService,
    private readonly config: ControllerConfig,
    @Inject(CONTROL_CLOCK) private readonly clock: Clock,
  ) {}

  async list(groups: readonly string[]): Promise<BreakerSummary[]> {
    const rows = await this.breakers.find({
      where: { group: In([...groups]) },
      order: BY_NAME,
    });
    return this.summarise(rows);
  }

  async summarise(rows: BreakerEntity[]): Promise<BreakerSummary[]> {
    return (await this.summariseWithCounts(rows)).map(({ summary }) => summary);
  }

  /** Summaries (live figures while CLOSED, the opening decision's otherwise) and each breaker's live counts. */
  async summariseWithCounts(
    rows: BreakerEntity[],
  ): Promise<{ summary: BreakerSummary; counts: LiveCounts }[]> {
    const counts = await this.verdicts.countsByBreaker(
      rows.map((b) => b.id),
      this.clock.now() - this.config.heartbeatTtlMs,
    );
    const policies = new Map((await this.groups.all()).map((g) => [g.group, g.quorum]));
    return Promise.all(
      rows.map(async (b) => {
        const pool = await this.pools.resolve(b.dependency);
        const live = counts.get(b.id) ?? { live: 0, open: 0 };
        const quorum =
          b.state === 'closed' ? figuresFromCounts(live, policies.get(b.group) ?? DEFAULT_QUORUM) : b.quorum;
        return { summary: toSummary(b, pool.id, pool.ramp.steps.length, quorum), counts: live };
      }),
    );
  }

  async allWithCounts(): Promise<{ summary: BreakerSummary; counts: LiveCounts }[]> {
    return this.summariseWithCounts(await this.breakers.find({ order: BY_NAME }));
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
