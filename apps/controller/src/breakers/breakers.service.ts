import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { figuresFromCounts, type LiveCounts, type ShiftRecord } from '@recloser/control';
import {
  allowedInto,
  type BreakerSummary,
  type Clock,
  DEFAULT_QUORUM,
  decideRegional,
  groupRegionalPolicy,
  healthSignature,
  isLocallyOpen,
  type QuorumFiguresWire,
  type QuorumPolicy,
  regionHealthOf,
  roundTo,
  routedInto,
  type ShiftWire,
} from '@recloser/core';
import { Repository } from 'typeorm';
import { decodeCursor, type Page, PAGE_DEFAULT, pageOf, type PageQuery } from '../common/paging.js';
import { ControllerConfig } from '../config/controller-config.js';
import { CONTROL_CLOCK } from '../control/clock.js';
import { RegionShiftsStore } from '../control/region-shifts.store.js';
import { FleetGroupsService } from '../groups/fleet-groups.service.js';
import { PoolsService } from '../pools/pools.service.js';
import { BreakerEntity } from './breaker.entity.js';
import { VerdictsRepository } from './verdicts.repository.js';

// pages follow a stable order, (group, dependency, scope kind, scope value): unique, so a keyset;
// a dependency's breakers (its group's and its domains') stay together
type BreakerKey = readonly [string, string, string, string];

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
    private readonly shifts: RegionShiftsStore,
  ) {}

  async list(groups: readonly string[], page: PageQuery = {}): Promise<Page<BreakerSummary>> {
    const { rows, next } = await this.page(page, groups);
    return { rows: await this.summarise(rows), next };
  }

  /**
   * One page of listed (not archived) breakers in the stable order, optionally within `groups`: a
   * keyset range on IDX_breakers_listed.
   */
  async page(page: PageQuery, groups?: readonly string[]): Promise<Page<BreakerEntity>> {
    const limit = page.limit ?? PAGE_DEFAULT;
    const after = decodeCursor<BreakerKey>(page.cursor, ['string', 'string', 'string', 'string']);
    if (groups?.length === 0) return { rows: [], next: null };
    const q = this.breakers.createQueryBuilder('b').where('b.archived_at IS NULL');
    if (groups) q.andWhere('b.group_name = ANY(:groups)', { groups: [...groups] });
    if (after)
      q.andWhere('(b.group_name, b.dependency, b.scope_kind, b.scope_value) > (:g, :d, :k, :v)', {
        g: after[0],
        d: after[1],
        k: after[2],
        v: after[3],
      });
    const fetched = await q
      .orderBy('b.group_name', 'ASC')
      .addOrderBy('b.dependency', 'ASC')
      .addOrderBy('b.scope_kind', 'ASC')
      .addOrderBy('b.scope_value', 'ASC')
      .limit(limit + 1)
      .getMany();
    return pageOf(fetched, limit, (b) => [b.group, b.dependency, b.scopeKind, b.scopeValue]);
  }

  async summarise(rows: BreakerEntity[]): Promise<BreakerSummary[]> {
    // the health signature reads the breakers' live verdict rows: on the list and the detail only;
    // the live counts are those rows counted, and the groups' policies are read once for both
    const now = this.clock.now();
    const ttl = this.config.heartbeatTtlMs;
    const policies = await this.quorumPolicies();
    const liveRows = await this.verdicts.rowsOf(
      rows.map((b) => b.id),
      now - ttl,
    );
    const counts = new Map(
      rows.map((b) => {
        const live = liveRows.get(b.id) ?? [];
        return [b.id, { live: live.length, open: live.filter((r) => isLocallyOpen(r.state)).length }];
      }),
    );
    const summaries = await this.summaries(rows, counts, policies);
    // the shifts stored for these group breakers (issue 14): what the plans allow into each region
    const shiftsOf = new Map<string, ShiftRecord[]>();
    for (const r of await this.shifts.ofGroups(rows.filter((b) => b.region === null).map((b) => b.id))) {
      const mine = shiftsOf.get(r.groupBreakerId);
      if (mine) mine.push(r);
      else shiftsOf.set(r.groupBreakerId, [r]);
    }
    const extra = rows.map((b) => {
      const live = liveRows.get(b.id) ?? [];
      // per-region quorum of a group's breaker, with the group's quorum policy in each region; the
      // moved traffic each region receives (routed rates) against what the shift plans allow
      const quorum = policies.get(b.group) ?? DEFAULT_QUORUM;
      const shifts = (shiftsOf.get(b.id) ?? []).filter((r) => r.mode !== 'idle');
      const routedIn = routedInto(live, now, ttl);
      const allowedIn = allowedInto(shifts.map((r) => r.allowed));
      const health = regionHealthOf(live, now, ttl).map((h) => ({
        ...h,
        shiftedInRate: routedIn.get(h.region) ?? 0,
        shiftAllowedRate: allowedIn.get(h.region) ?? 0,
      }));
      const decision = decideRegional(health, groupRegionalPolicy(quorum));
      const throttled = new Set(
        decision.regions.filter((r) => r.verdict === 'shift_throttled').map((r) => r.region),
      );
      return {
        health: healthSignature(live, b.region, now, ttl),
        regions: decision.regions.map((r) => ({
          region: r.region,
          verdict: r.verdict,
          quorum: { open: r.quorum.open, live: r.quorum.live, threshold: r.quorum.threshold },
          errorRate: r.signature.region?.errorRate ?? 0,
          saturation: r.signature.region?.saturation ?? 0,
          routedInRate: roundTo(routedIn.get(r.region) ?? 0),
          shiftAllowedRate: roundTo(allowedIn.get(r.region) ?? 0),
        })),
        ...(b.region === null ? { shifts: shifts.map((r) => shiftWire(r, routedIn, throttled)) } : {}),
      };
    });
    return summaries.map(({ summary }, i) => ({ ...summary, ...extra[i]! }));
  }

  /** Summaries (live figures while CLOSED, the opening decision's otherwise) and each breaker's live counts. */
  async summariseWithCounts(
    rows: BreakerEntity[],
  ): Promise<{ summary: BreakerSummary; counts: LiveCounts }[]> {
    const counts = await this.verdicts.countsByBreaker(
      rows.map((b) => b.id),
      this.clock.now() - this.config.heartbeatTtlMs,
    );
    return this.summaries(rows, counts, await this.quorumPolicies());
  }

  private async quorumPolicies(): Promise<Map<string, QuorumPolicy>> {
    return new Map((await this.groups.all()).map((g) => [g.group, g.quorum]));
  }

  private summaries(
    rows: BreakerEntity[],
    counts: ReadonlyMap<string, LiveCounts>,
    policies: ReadonlyMap<string, QuorumPolicy>,
  ): Promise<{ summary: BreakerSummary; counts: LiveCounts }[]> {
    return Promise.all(
      rows.map(async (b) => {
        const pool = await this.pools.resolve(b.dependency, b.group);
        const live = counts.get(b.id) ?? { live: 0, open: 0 };
        const quorum =
          b.state === 'closed' ? figuresFromCounts(live, policies.get(b.group) ?? DEFAULT_QUORUM) : b.quorum;
        return { summary: toSummary(b, pool.id, pool.ramp.steps.length, quorum), counts: live };
      }),
    );
  }

  async pageWithCounts(page: PageQuery): Promise<Page<{ summary: BreakerSummary; counts: LiveCounts }>> {
    const { rows, next } = await this.page(page);
    return { rows: await this.summariseWithCounts(rows), next };
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

/** A stored shift as shown: per receiver, what the plan allows and what is moved into it now. */
function shiftWire(
  r: ShiftRecord,
  routedIn: ReadonlyMap<string, number>,
  throttled: ReadonlySet<string>,
): ShiftWire {
  const regions = [...new Set([...Object.keys(r.allowed), ...r.plan.receivers.map((x) => x.region)])].sort();
  return {
    source: r.source,
    breakerId: r.breakerId,
    mode: r.mode,
    reason: r.plan.reason,
    deficitPerSec: roundTo(r.plan.deficitPerSec),
    receivers: regions.map((region) => ({
      region,
      allowedPerSec: roundTo(r.allowed[region] ?? 0),
      movedPerSec: roundTo(routedIn.get(region) ?? 0),
      throttled: throttled.has(region),
    })),
    expiresAt: r.plan.expiresAt === null ? null : new Date(r.plan.expiresAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}
