// Region-scoped breakers: when a group's breaker stays CLOSED but core's regional verdict sets one
// region apart (`region_open`: that region reached its own quorum while the rest of the pool is
// healthy), a breaker scoped to that region opens, and only the region's instances follow it
// through the usual lifecycle (OPEN → PROBING → RAMPING → CLOSED) on the pool's one probe budget.
// This file decides which regions open (the same verdict the controller publishes) and which
// breaker an instance follows; the lifecycle itself is GlobalBreaker's, unchanged.
import type { GlobalState } from '../wire.js';
import {
  isLive,
  isLocallyOpen,
  quorumThreshold,
  type QuorumPolicy,
  type QuorumRow,
} from '../quorum/Quorum.js';
import { regionHealthOf, type SignatureRow } from './HealthSignature.js';
import { DEFAULT_REGIONAL_POLICY, decideRegional, type RegionalPolicy } from './RegionalVerdict.js';

export type RegionRow = QuorumRow & SignatureRow;

export interface RegionOpening {
  region: string;
  /** the region's quorum figures, as onQuorum takes them (reached is always true here) */
  open: number;
  live: number;
  threshold: number;
  reached: true;
  /** the region's live, locally open instances (sorted): the verdicts that formed its quorum */
  formedBy: string[];
  /** the region's and the pool's error rate (the regional figures recorded with the transition) */
  regionErrorRate: number;
  poolErrorRate: number;
}

export interface RegionOpeningContext {
  now: number;
  heartbeatTtlMs: number;
  /** the group's quorum policy: applied in each region and across the pool, as the published verdicts do */
  quorum: QuorumPolicy;
  /** no region opens before this (the group quorum's learning period) */
  learningUntil: number;
  policy?: Omit<RegionalPolicy, 'region' | 'pool'>;
}

/** The regional policy the controller judges a group's breaker with (its quorum in each region and the pool). */
export function groupRegionalPolicy(
  quorum: QuorumPolicy,
  rest: Omit<RegionalPolicy, 'region' | 'pool'> = DEFAULT_REGIONAL_POLICY,
): RegionalPolicy {
  return { ...DEFAULT_REGIONAL_POLICY, ...rest, region: quorum, pool: quorum };
}

/**
 * A cheap filter before any row is read: no region can reach its quorum with fewer live, locally
 * open instances in the whole group than the smallest threshold, nor while the group learns.
 */
export function mayOpenRegion(
  openInGroup: number,
  ctx: Pick<RegionOpeningContext, 'now' | 'quorum' | 'learningUntil'>,
): boolean {
  return ctx.now >= ctx.learningUntil && openInGroup >= quorumThreshold(0, ctx.quorum);
}

/**
 * The regions whose verdict is `region_open` now, from the group breaker's live rows. Nothing while
 * the group learns, and nothing when the pool itself reached quorum (that is the group breaker's
 * `open`, never a regional one).
 */
export function regionsToOpen(rows: readonly RegionRow[], ctx: RegionOpeningContext): RegionOpening[] {
  if (ctx.now < ctx.learningUntil) return [];
  const decision = decideRegional(
    regionHealthOf(rows, ctx.now, ctx.heartbeatTtlMs),
    groupRegionalPolicy(ctx.quorum, ctx.policy),
  );
  if (decision.pool === 'open') return [];
  return decision.regions
    .filter((r) => r.verdict === 'region_open')
    .map((r) => ({
      region: r.region,
      open: r.quorum.open,
      live: r.quorum.live,
      threshold: r.quorum.threshold,
      reached: true as const,
      formedBy: rows
        .filter(
          (x) => x.region === r.region && isLive(x, ctx.now, ctx.heartbeatTtlMs) && isLocallyOpen(x.state),
        )
        .map((x) => x.instanceId)
        .sort(),
      regionErrorRate: r.signature.region?.errorRate ?? 0,
      poolErrorRate: r.signature.pool.errorRate,
    }));
}

/**
 * Which breaker an instance of a region follows: its region's while the group breaker is CLOSED and
 * the region's is not; the group's otherwise (a global open pauses every region, whatever its own).
 */
export function followedScope(group: GlobalState, region: GlobalState | null): 'group' | 'region' {
  return group === 'closed' && region !== null && region !== 'closed' ? 'region' : 'group';
}
