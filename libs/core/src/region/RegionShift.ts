// The shift plan of a region whose region breaker is not CLOSED, as the controller hands it to that
// region's instances (the plan's `shift` field), and the SDK's choice of where one call goes.
// planShift (ShiftPlan.ts) decides the region's rates; this file decides its inputs from live rows
// and how a region's rates are split between its instances.
import type { GlobalState } from '../wire.js';
import { isLive } from '../quorum/Quorum.js';
import { healthFigures, type SignatureRow } from './HealthSignature.js';
import { regionCapacityShare } from './RegionSlice.js';
import { shiftInput, type ShiftInput, type ShiftPlan, type ShiftRegion } from './ShiftPlan.js';

export type ShiftRow = SignatureRow & { instanceId: string; demand: Record<string, number> };

export interface RegionShiftContext {
  now: number;
  heartbeatTtlMs: number;
  /** the region whose breaker is not CLOSED */
  source: string;
  sourceState: GlobalState;
  /** the ramp's level while RAMPING (the share the source serves), else null */
  sourceLevel: number | null;
  /** the pool's shared quota, requests/s (the sum of its classes' capacity) */
  poolCapacityPerSec: number;
  /** a receiver's gates hold while its error rate stays at most this */
  maxReceiverErrorRate: number;
}

/** What one instance is told: its share of its region's receivers (requests/s each). */
export interface InstanceShift {
  source: string;
  mode: ShiftPlan['mode'];
  receivers: { region: string; ratePerSec: number }[];
  /** when the shift's time limit ends (ISO), or null */
  expiresAt: string | null;
}

const sumDemand = (d: Record<string, number>): number =>
  Object.values(d).reduce((s, v) => s + (Number.isFinite(v) && v > 0 ? v : 0), 0);

/**
 * planShift's input from the group breaker's live rows. A region's capacity is its live share of
 * the pool's quota (the controller knows no per-region capacity); its load the demand its instances
 * report (their backlog included). The source's error rate is the share of its demand it cannot
 * serve at home now (sourceErrorRate), so planShift's deficit is its demand minus what its breaker
 * admits.
 */
export function regionShiftInput(rows: readonly ShiftRow[], ctx: RegionShiftContext): ShiftInput {
  const live = rows.filter((r) => isLive(r, ctx.now, ctx.heartbeatTtlMs));
  const byRegion = new Map<string, ShiftRow[]>();
  for (const r of live) byRegion.set(r.region, [...(byRegion.get(r.region) ?? []), r]);
  if (!byRegion.has(ctx.source)) byRegion.set(ctx.source, []);
  const totalLive = live.length;
  const quota = Math.max(0, Number.isFinite(ctx.poolCapacityPerSec) ? ctx.poolCapacityPerSec : 0);
  const regions: ShiftRegion[] = [...byRegion.keys()].sort().map((region) => {
    const list = byRegion.get(region)!;
    const loadPerSec = list.reduce((s, r) => s + sumDemand(r.demand), 0);
    const capacityPerSec = quota * regionCapacityShare(list.length, totalLive);
    let errorRate = healthFigures(list, ctx.now, ctx.heartbeatTtlMs).errorRate;
    if (region === ctx.source)
      errorRate = sourceErrorRate(ctx.sourceState, ctx.sourceLevel, errorRate, loadPerSec, capacityPerSec);
    return {
      region,
      errorRate,
      capacityPerSec,
      loadPerSec,
      gatesHold: errorRate <= ctx.maxReceiverErrorRate,
    };
  });
  return shiftInput(ctx.now, ctx.source, regions, quota);
}

/**
 * The share of the source's demand it cannot serve at home while its region breaker is in `state`
 * (planShift's deficit is this share of the demand). OPEN or PROBING: all of it (paused, its
 * instances make no attempts to measure). RAMPING: what its reported demand — its backlog included
 * — exceeds what the ramp admits (the level times the region's slice of the pool), over that
 * demand; so a backlog queued during the fault keeps moving within the receivers' headroom until
 * the region serves its demand at home, and only then is the shift reversed (not when the level
 * alone reaches the top). CLOSED: the measured error rate.
 */
export function sourceErrorRate(
  state: GlobalState,
  level: number | null,
  measured: number,
  demandPerSec: number,
  capacityPerSec: number,
): number {
  if (state === 'open' || state === 'probing') return 1;
  if (state === 'ramping') {
    const demand = Number.isFinite(demandPerSec) ? Math.max(0, demandPerSec) : 0;
    if (demand === 0) return 0;
    const share = Math.min(1, Math.max(0, Number.isFinite(level) ? (level ?? 0) : 0));
    const admitted = share * (Number.isFinite(capacityPerSec) ? Math.max(0, capacityPerSec) : 0);
    return Math.min(1, Math.max(0, 1 - admitted / demand));
  }
  return measured;
}

/** One instance's share of the region's plan: the region's rates split evenly between its live instances. */
export function instanceShift(plan: ShiftPlan, sourceLive: number): InstanceShift {
  const n = Math.max(1, sourceLive);
  return {
    source: plan.source,
    mode: plan.mode,
    receivers: plan.receivers.map((r) => ({ region: r.region, ratePerSec: r.ratePerSec / n })),
    expiresAt: plan.expiresAt === null ? null : new Date(plan.expiresAt).toISOString(),
  };
}

/**
 * Where one call goes (the SDK's breaker.route): its own region while its breaker would admit it;
 * else the first region of the caller's list that the shift plan lets receive and whose token
 * bucket has a token (`take` spends it); else null — degrade in place, no region may take it now.
 */
export function chooseRoute(
  own: string | null,
  ownAdmits: boolean,
  regions: readonly string[],
  receivers: readonly string[],
  take: (region: string) => boolean,
): string | null {
  if (ownAdmits) return own !== null && regions.includes(own) ? own : (regions[0] ?? null);
  for (const region of regions)
    if (region !== own && receivers.includes(region) && take(region)) return region;
  return null;
}
