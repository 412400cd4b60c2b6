// The regional layer of the control plane: per region and for the pool, from live heartbeat rows,
// the regional verdict (core decideRegional) and, for every region that cannot serve its own
// traffic, a shift plan (core planShift). It decides nothing itself: it counts rows, hands the
// figures to core and remembers what core needs from one step to the next (the shift states).
//
// A region is covered by a breaker (`sources`): the rows of that breaker from the region's
// instances are the region's evidence. While that breaker is not CLOSED its instances are paused
// and report no locally open state: the region is then judged by the quorum that opened it, and
// what it cannot serve is its demand minus what it serves (the deficit a shift may carry).
import {
  DEFAULT_REGIONAL_POLICY,
  DEFAULT_SHIFT_POLICY,
  coveredRegionHealth,
  decideRegional,
  healthFigures,
  isLive,
  isLocallyOpen,
  planShift,
  shiftInput,
  type Clock,
  type RegionalDecision,
  type RegionalPolicy,
  type RegionalVerdictKind,
  type RegionHealth,
  type ShiftPlan,
  type ShiftPolicy,
  type ShiftRegion,
  type ShiftState,
} from '@recloser/core';
import type { BreakerRecord, PresenceReader } from '../ports.js';

export interface RegionSource {
  region: string;
  /** the breaker whose rows (from this region's instances) are the region's evidence */
  breakerId: string;
}

export interface RegionalControlOptions {
  sources: readonly RegionSource[];
  /** requests/s each region reports it can serve */
  capacityPerSec: Readonly<Record<string, number>>;
  /** the pool's shared quota, requests/s (what every region's traffic together may use) */
  poolQuotaPerSec: number;
  heartbeatTtlMs: number;
  /** the evidence window of one heartbeat (its attempts and successes are counted over it) */
  heartbeatIntervalMs: number;
  /** a receiver's gates hold while its failed share stays at most this */
  maxReceiverErrorRate: number;
  policy?: RegionalPolicy;
  shift?: ShiftPolicy;
}

export interface RegionFigures extends RegionHealth {
  demandPerSec: number;
  servedPerSec: number;
  breakerState: BreakerRecord['globalState']['state'] | null;
}

export interface RegionalTransition {
  at: number;
  /** `region:<name>` or `global` */
  scope: string;
  from: RegionalVerdictKind | 'closed';
  to: RegionalVerdictKind;
}

export interface RegionalSnapshot {
  at: number;
  decision: RegionalDecision;
  figures: RegionFigures[];
  plans: ShiftPlan[];
}

export class RegionalControl {
  private readonly policy: RegionalPolicy;
  private readonly shift: ShiftPolicy;
  private readonly verdicts = new Map<string, RegionalVerdictKind>();
  private poolOpen = false;
  private readonly shiftStates = new Map<string, ShiftState>();
  private readonly routedIn = new Map<string, number>();
  private last: RegionalSnapshot | null = null;

  constructor(
    private readonly presence: PresenceReader,
    private readonly breakers: { get(id: string): Promise<BreakerRecord | null> },
    private readonly clock: Clock,
    readonly options: RegionalControlOptions,
  ) {
    this.policy = options.policy ?? DEFAULT_REGIONAL_POLICY;
    this.shift = options.shift ?? DEFAULT_SHIFT_POLICY;
  }

  /** What the heartbeats say each region receives from others now (requests/s). */
  reportRouted(region: string, ratePerSec: number): void {
    this.routedIn.set(region, Math.max(0, ratePerSec));
  }

  /** The latest evaluation (null before the first). */
  snapshot(): RegionalSnapshot | null {
    return this.last;
  }

  /** The source region's current plan, or null when it moves nothing. */
  planFor(region: string): ShiftPlan | null {
    return this.last?.plans.find((p) => p.source === region) ?? null;
  }

  verdictOf(region: string): RegionalVerdictKind {
    return this.verdicts.get(region) ?? 'closed';
  }

  /** One evaluation: figures from live rows, core's verdicts and plans; returns the verdict changes. */
  async evaluate(): Promise<RegionalTransition[]> {
    const now = this.clock.now();
    const figures: RegionFigures[] = [];
    for (const src of this.options.sources) figures.push(await this.figuresOf(src, now));
    // what the plans in force allow into each region (the previous step's plans)
    const allowedIn = new Map<string, number>();
    for (const p of this.last?.plans ?? [])
      for (const r of p.receivers) allowedIn.set(r.region, (allowedIn.get(r.region) ?? 0) + r.ratePerSec);
    const health = figures.map((f) => ({
      ...f,
      shiftedInRate: this.routedIn.get(f.region) ?? 0,
      shiftAllowedRate: allowedIn.get(f.region) ?? 0,
    }));
    const decision = decideRegional(health, this.policy, this.verdicts);

    const transitions: RegionalTransition[] = [];
    const poolOpen = decision.pool === 'open';
    if (poolOpen !== this.poolOpen) {
      transitions.push({
        at: now,
        scope: 'global',
        from: this.poolOpen ? 'open' : 'closed',
        to: poolOpen ? 'open' : 'closed',
      });
      this.poolOpen = poolOpen;
    }
    for (const v of decision.regions) {
      const was = this.verdictOf(v.region);
      if (was !== v.verdict) {
        // a global open is recorded once, for the pool, not once per region
        if (v.verdict !== 'open' && was !== 'open')
          transitions.push({ at: now, scope: `region:${v.region}`, from: was, to: v.verdict });
        this.verdicts.set(v.region, v.verdict);
      }
    }

    const plans: ShiftPlan[] = [];
    const shiftRegions: ShiftRegion[] = figures.map((f) => ({
      region: f.region,
      errorRate: f.errorRate,
      capacityPerSec: this.options.capacityPerSec[f.region] ?? 0,
      loadPerSec: f.demandPerSec,
      gatesHold: f.errorRate <= this.options.maxReceiverErrorRate,
    }));
    for (const f of figures) {
      const prev = this.shiftStates.get(f.region) ?? null;
      // only a region the verdicts set apart sheds traffic; a shift under way still reverses gradually
      if (this.verdictOf(f.region) !== 'region_open' && !prev) continue;
      const input = shiftInput(now, f.region, shiftRegions, this.options.poolQuotaPerSec);
      const out = planShift(input, prev, this.shift);
      if (out.plan.mode === 'idle') this.shiftStates.delete(f.region);
      else this.shiftStates.set(f.region, out.state);
      plans.push(out.plan);
    }
    this.last = { at: now, decision, figures, plans };
    return transitions;
  }

  private async figuresOf(src: RegionSource, now: number): Promise<RegionFigures> {
    const breaker = await this.breakers.get(src.breakerId);
    const rows = (await this.presence.rows(src.breakerId, now - this.options.heartbeatTtlMs)).filter(
      (r) => r.region === src.region && isLive(r, now, this.options.heartbeatTtlMs),
    );
    let open = 0;
    let successes = 0;
    let demand = 0;
    for (const r of rows) {
      if (isLocallyOpen(r.state)) open += 1;
      successes += r.evidence.successes;
      for (const v of Object.values(r.demand)) demand += v;
    }
    const servedPerSec = successes / (this.options.heartbeatIntervalMs / 1000);
    const state = breaker?.globalState.state ?? null;
    // how the region's own breaker changes its picture is core's (coveredRegionHealth)
    const health = coveredRegionHealth(
      src.region,
      {
        live: rows.length,
        open,
        // the failed share as the breaker's health signature counts it (core healthFigures)
        errorRate: healthFigures(rows, now, this.options.heartbeatTtlMs).errorRate,
        demandPerSec: demand,
        servedPerSec,
      },
      state,
      this.options.capacityPerSec[src.region] ?? 0,
    );
    return { ...health, demandPerSec: demand, servedPerSec, breakerState: state };
  }
}
