// How a ramp step's budget becomes per-instance allowances. The budget is the provider's
// (a fraction of each class's capacity), never a function of fleet size: more instances means
// smaller shares, not more load. Shares follow reported demand, max-min fair.
import type { ClassAllowance, TrafficClass } from '../wire.js';
import type { ClassCapacity, PoolConfig } from '../pool/PoolConfig.js';

export interface Demand<Id = string> {
  id: Id;
  demand: number;
}

/**
 * Water-filling: every claimant gets min(demand, level), the level as high as the budget allows.
 * Nobody gets more than asked, nobody is below its demand while another gets more, and the
 * shares never sum above the budget. Non-positive or non-finite demand gets 0.
 */
export function maxMinFair<Id>(budget: number, demands: readonly Demand<Id>[]): Map<Id, number> {
  const shares = new Map<Id, number>();
  const wanting: Demand<Id>[] = [];
  for (const d of demands) {
    const demand = Number.isFinite(d.demand) && d.demand > 0 ? d.demand : 0;
    shares.set(d.id, 0);
    if (demand > 0) wanting.push({ id: d.id, demand });
  }
  if (!(budget > 0) || wanting.length === 0) return shares;
  wanting.sort((a, b) => a.demand - b.demand);
  let remaining = budget;
  for (let i = 0; i < wanting.length; i++) {
    const w = wanting[i]!;
    const share = Math.min(w.demand, remaining / (wanting.length - i));
    shares.set(w.id, share);
    remaining = Math.max(0, remaining - share);
  }
  // floating point may leave the sum an ulp over the budget: take it off the largest share
  let total = 0;
  for (const v of shares.values()) total += v;
  for (let guard = 0; total > budget && guard < 4; guard++) {
    const largest = wanting[wanting.length - 1]!.id;
    shares.set(largest, Math.max(0, shares.get(largest)! - (total - budget) * 2));
    total = 0;
    for (const v of shares.values()) total += v;
  }
  return shares;
}

/** Where a ramp is: its move in this epoch and the level (fraction of capacity) admitted. */
export interface RampPosition {
  step: number;
  level: number;
}

/**
 * The classes admitted at a ramp position and their budgets: class k of `classOrder` joins at the
 * ramp's move k, every admitted class runs at `level` of its capacity. Concurrency is whole calls,
 * at least one per admitted class (a budget of half a call would admit nobody).
 */
export function stepBudget(pool: PoolConfig, at: RampPosition): Record<TrafficClass, ClassCapacity> {
  const out: Record<TrafficClass, ClassCapacity> = {};
  const { step, level: fraction } = at;
  if (!(fraction > 0) || !Number.isFinite(fraction) || step < 0) return out;
  pool.ramp.classOrder.forEach((cls, k) => {
    const cap = pool.capacity[cls];
    if (k > step || cap === undefined) return;
    out[cls] = {
      ratePerSec: cap.ratePerSec * fraction,
      concurrency: Math.max(1, Math.floor(cap.concurrency * fraction)),
    };
  });
  return out;
}

export interface InstanceDemand {
  instanceId: string;
  /** requests/s wanted per traffic class (the heartbeat's `demand`) */
  demand: Record<TrafficClass, number>;
}

/**
 * How many instances a step may admit for one class: every admitted instance needs at least one
 * whole call of concurrency and of burst, so at most the step's concurrency, or — when the step's
 * rate is larger — floor(rate × 1 s): a burst of one each is then at most one second of the step's
 * rate. (Capping at concurrency alone left a large fleet unable to use the rate it was allowed:
 * 500 instances, 200 calls → 200 admitted, the last step binding forever.)
 */
export function admissionLimit(budget: ClassCapacity): number {
  return Math.max(1, budget.concurrency, Math.floor(budget.ratePerSec));
}

/**
 * Divides each admitted class's step budget among instances by demand. When more instances want a
 * class than `admissionLimit` of its budget, only that many are admitted: a window over the wanting
 * instances (ordered by id) that starts where `rotation` says (`rotationStart`) and is as wide as
 * the limit. Advance `rotation` once per allowance period (for example floor(now / validForMs)) and
 * every instance is admitted within 2 × ceil(wanting / limit) periods.
 *
 * The window's start does not depend on the level, so the admitted sets of one rotation are nested:
 * a higher level admits a superset of a lower level's instances, a lower level a subset. A level
 * change therefore never swaps the admitted set for a disjoint one (whose fresh bursts would land in
 * the same second as the old set's last calls, before the old set hears its next plan).
 *
 * When the window moves, the instances leaving it and those entering it switch at one moment: the
 * controller announces each instance's share of the next rotation ahead of the move (rotationAt,
 * the plan's `allowance.next`), so no heartbeat interval idles between the two windows.
 *
 * Concurrency is the step's calls water-filled by rate demand (max(1, fair share) each: one call
 * each when more instances are admitted than the step has calls).
 * Guarantees per class: Σ rate ≤ step rate; Σ concurrency and Σ burst ≤ max(1, step concurrency,
 * floor(step rate)); an instance with no demand for a class gets nothing for it (and instances with
 * no allowance at all are absent from the map).
 */
export function divideAllowances(
  pool: PoolConfig,
  step: RampPosition,
  demands: readonly InstanceDemand[],
  rotation = 0,
): Map<string, Record<TrafficClass, ClassAllowance>> {
  const out = new Map<string, Record<TrafficClass, ClassAllowance>>();
  for (const [cls, budget] of Object.entries(stepBudget(pool, step))) {
    const wanting = demands
      .map((d) => ({ id: d.instanceId, demand: d.demand[cls] ?? 0 }))
      .filter((d) => Number.isFinite(d.demand) && d.demand > 0)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (!(budget.ratePerSec > 0)) continue;
    const slots = admissionLimit(budget);
    const admitted = admitByRotation(wanting, slots, rotation);
    if (admitted.length === 0) continue;
    const rates = maxMinFair(budget.ratePerSec, admitted);
    // concurrency follows the rate demand: an instance wanting a share d of the step rate needs
    // about d·C of its C calls (at least one); whole calls, water-filled the same way. More
    // admitted than calls: the fair share is under one call, so one each.
    const needs = admitted.map((a) => ({
      id: a.id,
      need: Math.max(1, Math.ceil((a.demand / budget.ratePerSec) * budget.concurrency - 1e-9)),
    }));
    const calls =
      admitted.length <= budget.concurrency
        ? wholeMaxMinFair(budget.concurrency, needs)
        : new Map(admitted.map((a) => [a.id, 1]));
    for (const a of admitted) {
      const rate = rates.get(a.id) ?? 0;
      const concurrency = calls.get(a.id) ?? 0;
      if (concurrency === 0) continue;
      const burst = Math.max(1, Math.min(concurrency, Math.ceil(rate)));
      let classes = out.get(a.id);
      if (!classes) out.set(a.id, (classes = {}));
      classes[cls] = { ratePerSec: rate, burst, concurrency };
    }
  }
  return out;
}

/**
 * The admitted window moves once every this many allowance periods (heartbeat TTLs). Moves were
 * once bought with an idle heartbeat (moving every TTL cost a small step a fifth of its calls); now
 * they are announced ahead (rotationAt) and cost none, but fewer moves keep each instance's bucket
 * warm and the division cache small.
 */
export const ROTATION_TTLS = 4;

/** The golden ratio's fractional part: the starts r·φ⁻¹ mod 1 spread evenly over any window width. */
const ROTATION_STRIDE = (Math.sqrt(5) - 1) / 2;

/**
 * Where the admission window of `rotation` starts among `n` wanting instances: ⌊frac(r·φ⁻¹)·n⌋.
 * It does not depend on the window's width (so windows of one rotation are nested), and the starts
 * of any run of consecutive rotations are spread evenly (a Weyl sequence), so windows of width w
 * cover all n within 2·⌈n/w⌉ rotations for every w (a fixed stride could do that for one w only).
 */
export function rotationStart(rotation: number, n: number): number {
  if (!(n > 1)) return 0;
  const r = Number.isFinite(rotation) ? Math.trunc(rotation) : 0;
  const x = r * ROTATION_STRIDE;
  return Math.min(n - 1, Math.floor((x - Math.floor(x)) * n));
}

/** At most `slots` of the (id-ordered) wanting claimants, a window that starts at rotationStart. */
function admitByRotation<T>(wanting: T[], slots: number, rotation: number): T[] {
  if (wanting.length <= slots) return wanting;
  const n = wanting.length;
  const start = rotationStart(rotation, n);
  const chosen: T[] = [];
  for (let i = 0; i < slots; i++) chosen.push(wanting[(start + i) % n]!);
  return chosen;
}

/**
 * Integer water-filling: each claimant gets one unit, then min(need, L) for the highest level L
 * that fits, and the units left over go one each to the first claimants still below their need.
 */
function wholeMaxMinFair(units: number, needs: { id: string; need: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  if (needs.length === 0 || units < needs.length) return out;
  const fill = (level: number) => needs.reduce((s, n) => s + Math.min(n.need, level), 0);
  let lo = 1;
  let hi = Math.max(...needs.map((n) => n.need));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fill(mid) <= units) lo = mid;
    else hi = mid - 1;
  }
  let spare = units - fill(lo);
  for (const n of needs) {
    let give = Math.min(n.need, lo);
    if (spare > 0 && n.need > lo) {
      give++;
      spare--;
    }
    out.set(n.id, give);
  }
  return out;
}
