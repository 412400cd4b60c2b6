// Shift velocity: when a region's calls fail, how much of its traffic may move to other regions,
// where, and how fast. Moving a whole region's load onto its neighbours at once is how one region's
// blip becomes a fleet-wide cascade (B takes A's load, B's latency climbs, B opens, and so on), so
// a source region shifts only its deficit, each receiver takes at most its headroom (reported
// capacity minus its own load) and all receivers together at most the pool's shared headroom,
// moved traffic ramps (a small first step, growth while the receiver's gates hold, a step back
// when they do not), nothing moves toward a region less healthy than the source, nothing moves when
// every region is degraded (degrade in place), and every shift has a time limit, after which — or
// once the source recovers — it is reversed gradually.

export interface ShiftRegion {
  region: string;
  /** failed share of the region's calls in the last window, in [0, 1]: its health (lower is better) */
  errorRate: number;
  /** requests/s the region reports it can serve */
  capacityPerSec: number;
  /** requests/s the region carries now, without what this source moves into it */
  loadPerSec: number;
  /** the receiver's gates (success rate, latency, saturation) held over the last step */
  gatesHold: boolean;
}

export interface ShiftPolicy {
  /** a source at or below this error rate keeps its traffic (mostly healthy: no deficit) */
  keepErrorRate: number;
  /** a region above this error rate is degraded: it receives nothing */
  degradedErrorRate: number;
  /** a receiver is worse than the source when its error rate exceeds the source's by more than this */
  healthMargin: number;
  /** the first step moves this share of a receiver's headroom */
  firstStepShare: number;
  /** moved rate grows by this factor per step while the receiver's gates hold, falls by it otherwise */
  growth: number;
  /** rates change at most once per step */
  stepMs: number;
  /** a shift lasts at most this long, then it is reversed */
  maxShiftMs: number;
  /** a rate reversed below this is dropped to zero */
  minRatePerSec: number;
  /**
   * a receiver takes at most this share of its headroom (in (0, 1]): its own load moves from one
   * window to the next, and moved traffic must not be what tips it over
   */
  headroomShare: number;
}

export const DEFAULT_SHIFT_POLICY: ShiftPolicy = {
  keepErrorRate: 0.05,
  degradedErrorRate: 0.1,
  healthMargin: 0.02,
  firstStepShare: 0.1,
  growth: 2,
  stepMs: 5000,
  maxShiftMs: 30 * 60_000,
  minRatePerSec: 0.5,
  headroomShare: 0.8,
};

export interface ShiftInput {
  now: number;
  source: string;
  /** requests/s the source region wants */
  sourceDemandPerSec: number;
  /** every region of the pool, the source included */
  regions: readonly ShiftRegion[];
  /** the pool's shared quota minus its load, without what this source moves */
  poolHeadroomPerSec: number;
}

/**
 * planShift's input for `source` from every region's figures (the source included): the source's
 * demand is its load, and the pool's headroom is what its quota leaves once every other region's
 * load is served (the source's own demand is what would move: not load on the quota yet).
 */
export function shiftInput(
  now: number,
  source: string,
  regions: readonly ShiftRegion[],
  poolQuotaPerSec: number,
): ShiftInput {
  const sourceDemandPerSec = regions.find((r) => r.region === source)?.loadPerSec ?? 0;
  const totalLoad = regions.reduce((s, r) => s + r.loadPerSec, 0);
  return {
    now,
    source,
    sourceDemandPerSec,
    regions,
    poolHeadroomPerSec: poolQuotaPerSec - (totalLoad - sourceDemandPerSec),
  };
}

/** What a source region's plan carried over to its next step (serialisable). */
export interface ShiftState {
  source: string;
  /** when this shift began (null: nothing moved since the source was last healthy) */
  startedAt: number | null;
  /** when the rates last changed */
  steppedAt: number;
  /** the time limit passed: reversing until the source recovers */
  expired: boolean;
  ratesPerSec: Record<string, number>;
}

export type ShiftMode = 'idle' | 'shifting' | 'frozen' | 'reversing';

export interface ShiftReceiver {
  region: string;
  /** the most requests/s the source may send to this region now */
  ratePerSec: number;
  /** the receiver's headroom the rate was capped by */
  headroomPerSec: number;
}

export interface ShiftPlan {
  source: string;
  mode: ShiftMode;
  reason: string;
  /** requests/s the source cannot serve itself */
  deficitPerSec: number;
  receivers: ShiftReceiver[];
  /** when the shift's time limit ends (null when nothing is moving) */
  expiresAt: number | null;
}

const finite = (x: number): number => (Number.isFinite(x) ? x : 0);
const headroomOf = (r: ShiftRegion): number =>
  Math.max(0, finite(r.capacityPerSec) - Math.max(0, finite(r.loadPerSec)));
const errorOf = (r: ShiftRegion): number => Math.min(1, Math.max(0, finite(r.errorRate)));

/**
 * The source region's plan for now and the state for its next call. Caps (receiver headroom,
 * pool headroom, health) apply on every call; the ramp moves at most once per `stepMs`.
 */
export function planShift(
  input: ShiftInput,
  prev: ShiftState | null,
  policy: ShiftPolicy,
): { plan: ShiftPlan; state: ShiftState } {
  const { now, source } = input;
  const src = input.regions.find((r) => r.region === source);
  const srcError = src ? errorOf(src) : 0;
  const deficit =
    srcError > policy.keepErrorRate ? Math.max(0, finite(input.sourceDemandPerSec)) * srcError : 0;
  const last = prev && prev.source === source ? prev : null;
  const prevRates = last?.ratesPerSec ?? {};
  const stepDue = !last || now - last.steppedAt >= policy.stepMs;
  const others = input.regions.filter((r) => r.region !== source);
  const allDegraded =
    input.regions.length > 0 && input.regions.every((r) => errorOf(r) > policy.degradedErrorRate);
  const expired =
    (last?.expired ?? false) || (last?.startedAt != null && now - last.startedAt >= policy.maxShiftMs);

  let mode: ShiftMode;
  let reason: string;
  const wanted = new Map<string, number>();
  if (allDegraded) {
    mode = 'frozen';
    reason = 'every region is degraded: degrade in place';
  } else if (deficit === 0 || expired) {
    mode = 'reversing';
    reason = deficit === 0 ? 'the source serves its own traffic again' : 'the shift reached its time limit';
    for (const r of others) {
      const was = prevRates[r.region] ?? 0;
      const next = stepDue ? was / policy.growth : was;
      if (next >= policy.minRatePerSec) wanted.set(r.region, next);
    }
  } else {
    mode = 'shifting';
    reason = 'moving the deficit within the receivers’ headroom';
    for (const r of others) {
      if (errorOf(r) > policy.degradedErrorRate) continue;
      const was = prevRates[r.region] ?? 0;
      let next: number;
      if (!stepDue) next = was;
      else if (was <= 0) next = policy.firstStepShare * headroomOf(r);
      else next = r.gatesHold ? was * policy.growth : was / policy.growth;
      if (next > 0) wanted.set(r.region, next);
    }
  }

  // the caps, on every call: health, the receiver's headroom, the pool's headroom, the deficit
  // (a reversal may keep more than the deficit for a while: that is what makes it gradual)
  const capped: ShiftReceiver[] = [];
  for (const r of others) {
    const w = wanted.get(r.region);
    if (w === undefined) continue;
    if (errorOf(r) > srcError + policy.healthMargin) continue;
    const headroom = headroomOf(r);
    const rate = Math.min(w, headroom * Math.min(1, Math.max(0, policy.headroomShare)));
    if (rate > 0) capped.push({ region: r.region, ratePerSec: rate, headroomPerSec: headroom });
  }
  const total = capped.reduce((s, r) => s + r.ratePerSec, 0);
  const limit = Math.max(0, finite(input.poolHeadroomPerSec));
  const ceiling = mode === 'shifting' ? Math.min(limit, deficit) : limit;
  if (total > ceiling) {
    const scale = total > 0 ? ceiling / total : 0;
    for (const r of capped) r.ratePerSec *= scale;
  }
  const receivers = capped.filter((r) => r.ratePerSec > 0);
  const moving = receivers.length > 0;
  const startedAt = moving ? (last?.startedAt ?? now) : deficit === 0 ? null : (last?.startedAt ?? null);
  const changed = stepDue || !last;
  const state: ShiftState = {
    source,
    startedAt,
    steppedAt: changed ? now : last.steppedAt,
    expired: deficit === 0 ? false : expired,
    ratesPerSec: Object.fromEntries(receivers.map((r) => [r.region, r.ratePerSec])),
  };
  if (!moving && mode === 'reversing' && deficit === 0) {
    mode = 'idle';
    reason = 'nothing to move';
  }
  return {
    plan: {
      source,
      mode,
      reason,
      deficitPerSec: deficit,
      receivers,
      expiresAt: startedAt !== null && moving ? startedAt + policy.maxShiftMs : null,
    },
    state,
  };
}
