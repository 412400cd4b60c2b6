// The figures of a strategy's run, and exactly what each one means.
//
// - peakAttemptsPerSec: the recovery wave's peak. The most attempts (first tries, retries, half-open
//   calls and probes, across all instances) in any 1-s window lying wholly between the end of the
//   outage and WAVE_MS after the provider first answers a call successfully again: the moment a
//   fleet sees the provider back and acts on it. Windows slide by SLOT_MS, not by whole seconds: a
//   clock-second bucket straddling the wave's end counted calls sent after it (a ramp step 0.1 s
//   past the end showed in S7's peak at some fleet sizes and not at others: 70 against 184/s).
//   Without an outage it is the peak of the whole run. peakAttemptsAfterWave is the peak from
//   there to the end of the run (a backlog draining, a later herd); peakAttemptsAtMs is where the
//   wave's peak window starts.
// - timeToRecoveredMs: from the end of the outage to the start of the first STABLE_MS window in
//   which no breaker opened (local or global) and accepted work averaged at least RECOVERED_SHARE of
//   what the provider can sustainably serve this fleet (min(demand, capacity)). null = never.
// - retripsAfterRecovery: after the outage, the breaker that decides for the fleet opened again
//   after it had let traffic through: for strategies without a controller that is each instance's
//   own breaker (closed -> open); for recloser it is the group's breaker (ramping/closed -> open).
//   localOpensAfterOutage counts instance breakers closed -> open for every strategy, so nothing
//   is hidden by that distinction.
// - falseGlobalOpens: global opens while the provider was fully healthy (no outage, full capacity).
// - globalOpens counts the group breaker's opens by a quorum or a collapsed ramp;
//   probeFailureReopens counts PROBING -> OPEN (a probe that found the provider still down) apart.
// - maxAttemptedOverServable: from the second of the first successful call after the outage (for
//   recloser, its first successful probe) to the end, the largest ratio of a second's attempts to
//   what the provider could serve in that second (its health included in the collapse model).
// - shortfall: for strategies with a controller, when the work under servable was lost: the points
//   of servable lost in each phase of the group breaker's recovery (Shortfall.ts); null otherwise.
// - budgetViolations: the overrun checker (Invariants.ts) run on the series, for strategies with a
//   controller: seconds in which the fleet sent more than the probe budget or the ramp's allowance.
import type { RegionalFigures } from '../regions/RegionalFigures.js';
import { roundTo, type GlobalState, type PoolConfig } from '@recloser/core';
import { probeAndRampOverruns } from './Invariants.js';
import { shortfallByPhase, type Shortfall } from './Shortfall.js';
import { SLOT_MS, type Recorder, type Series, type Transition } from './Recorder.js';

export const WAVE_MS = 5_000;
export const STABLE_MS = 30_000;
export const RECOVERED_SHARE = 0.8;

export interface SeriesPoint {
  t: number;
  attempts: number;
  retries: number;
  probes: number;
  accepted: number;
  failed: number;
  admittedByClass: Record<string, number>;
  openInstances: number;
  globalState: GlobalState | null;
  /** the controller's ramp step at the end of the second (recloser), else null */
  globalStep: number | null;
  /** the controller's admitted ramp level at the end of the second (recloser), else null */
  globalLevel: number | null;
  /** requests/s the provider could serve in this second */
  servable: number;
  queueDepth: number;
}

/** The common figures; a regional strategy (S4, S8) adds its RegionalFigures (regions/RegionalFigures.ts). */
export interface StrategyFigures extends Partial<RegionalFigures> {
  peakAttemptsPerSec: number;
  /** where the 1-s window of peakAttemptsPerSec starts (ms into the run) */
  peakAttemptsAtMs: number;
  /** the peak after the recovery wave, to the end of the run (backlog drains, later herds) */
  peakAttemptsAfterWave: number;
  acceptedWork: number;
  failedAttempts: number;
  retryVolume: number;
  probes: number;
  probeLatencyP95Ms: number | null;
  timeToRecoveredMs: number | null;
  /** false when the scenario has no outage (time until recovered does not apply) */
  hadOutage: boolean;
  /** the group breaker's opens by a quorum or a collapsed ramp (not a failed probe's reopen) */
  globalOpens: number;
  /** PROBING -> OPEN: a probe that found the provider still down */
  probeFailureReopens: number;
  falseGlobalOpens: number;
  retripsAfterRecovery: number;
  localOpensAfterOutage: number;
  /** successful calls after the outage over what the provider could serve in that time (null without outage) */
  acceptedShareOfServable: number | null;
  /** p95 latency of the calls (not probes) that succeeded after the outage (null without outage) */
  acceptedLatencyP95Ms: number | null;
  /** max over the seconds from the first success after the outage of attempts / servable (null without outage) */
  maxAttemptedOverServable: number | null;
  /** recloser: the points of servable lost per phase of its recovery (Shortfall.ts); null without a controller or an outage */
  shortfall: Shortfall | null;
  /** calls the provider served after their caller had given up (collapse model) */
  wastedCalls: number;
  maxQueueDepthByRegion: Record<string, number>;
  /** work units dropped because the backlog was full, and units that failed every retry */
  shedWork: number;
  failedWork: number;
  /** instances reported isolated (locally open while the group is closed), recloser only */
  isolatedInstances: string[];
  /** budget or allowance overruns seen during the run (must be empty for recloser) */
  budgetViolations: string[];
  /** the group breaker's transitions (recloser), each with the controller's figures behind it */
  globalTransitions: Omit<Transition, 'who'>[];
  series: SeriesPoint[];
}

export interface RunFacts {
  /** the pool the controller budgets with (recloser): the overrun checker runs against it */
  pool: PoolConfig | null;
  wastedCalls: number;
  durationMs: number;
  outageStartMs: number | null;
  outageEndMs: number | null;
  recoveredFraction: number;
  /** requests/s the provider can serve this fleet after the outage, and what the fleet wants */
  servableAfterPerSec: number;
  demandPerSec: number;
  maxQueueDepthByRegion: Record<string, number>;
  isolatedInstances: string[];
  /** the strategy has a group breaker (recloser): re-trips are counted on it */
  hasController: boolean;
}

function p95(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!);
}

function providerHealthyAt(t: number, f: RunFacts): boolean {
  if (f.outageStartMs === null || f.outageEndMs === null) return true;
  if (t < f.outageStartMs) return true;
  return t >= f.outageEndMs && f.recoveredFraction >= 1;
}

function shareOfServable(rec: Recorder, f: RunFacts): number | null {
  if (f.outageEndMs === null) return null;
  const from = Math.ceil(f.outageEndMs / 1000);
  const to = Math.floor(f.durationMs / 1000);
  let accepted = 0;
  for (let s = from; s < to; s++) accepted += rec.successes.at(s);
  const servable = f.servableAfterPerSec * (to - from);
  return servable > 0 ? roundTo(accepted / servable) : null;
}

function attemptedOverServable(series: readonly SeriesPoint[], rec: Recorder, f: RunFacts): number | null {
  if (f.outageEndMs === null || rec.firstSuccessAfter === null) return null;
  let worst = 0;
  for (const { attempts, servable } of series.slice(Math.floor(rec.firstSuccessAfter / 1000))) {
    if (attempts === 0) continue;
    // a second the provider could serve nothing in counts as serving one call (finite in JSON)
    worst = Math.max(worst, attempts / Math.max(1, servable));
  }
  return roundTo(worst);
}

/**
 * The most attempts in any 1-s window lying wholly within [fromMs, toMs), windows sliding by
 * SLOT_MS (the whole span when it is shorter than a second), and where that window starts.
 */
export function peakPerSecond(slots: Series, fromMs: number, toMs: number): { peak: number; atMs: number } {
  const perWindow = 1000 / SLOT_MS;
  const first = Math.ceil(fromMs / SLOT_MS);
  const last = Math.floor(toMs / SLOT_MS); // exclusive: the slot toMs falls in is not wholly inside
  let sum = 0;
  for (let k = first; k < Math.min(last, first + perWindow); k++) sum += slots.at(k);
  let best = { peak: sum, atMs: first * SLOT_MS };
  for (let k = first + perWindow; k < last; k++) {
    sum += slots.at(k) - slots.at(k - perWindow);
    if (sum > best.peak) best = { peak: sum, atMs: (k - perWindow + 1) * SLOT_MS };
  }
  return best;
}

export function summarise(rec: Recorder, f: RunFacts): StrategyFigures {
  const seconds = Math.ceil(f.durationMs / 1000);
  const series: SeriesPoint[] = [];
  for (let s = 0; s < seconds; s++) {
    const admittedByClass: Record<string, number> = {};
    for (const [cls, values] of rec.admittedByClass) admittedByClass[cls] = values.at(s);
    let queueDepth = 0;
    for (const values of rec.queueDepthByRegion.values()) queueDepth += values.at(s);
    series.push({
      t: s,
      attempts: rec.attemptsIn(s),
      retries: rec.retries.at(s),
      probes: rec.probes.at(s),
      accepted: rec.successes.at(s),
      failed: rec.failures.at(s),
      admittedByClass,
      openInstances: rec.openInstances.at(s),
      globalState: rec.globalStateBySecond[s] ?? null,
      globalStep: rec.globalStepBySecond[s] ?? null,
      globalLevel: rec.globalLevelBySecond[s] ?? null,
      servable: rec.servable.at(s),
      queueDepth,
    });
  }
  const sum = (pick: (p: SeriesPoint) => number): number => series.reduce((acc, p) => acc + pick(p), 0);

  const waveFrom = f.outageEndMs ?? 0;
  const waveTo = f.outageEndMs === null ? f.durationMs : (rec.firstSuccessAfter ?? f.durationMs) + WAVE_MS;
  const end = Math.min(waveTo, f.durationMs);
  const wave = peakPerSecond(rec.attemptsBySlot, waveFrom, end);
  const afterWave = peakPerSecond(rec.attemptsBySlot, end, f.durationMs);

  const groupTransitions = rec.transitions.filter((t) => t.who === 'global');
  const opens = rec.transitions.filter((t) => t.to === 'open');
  const probeReopens = opens.filter((t) => t.who === 'global' && t.from === 'probing');
  const globalOpens = opens.filter((t) => t.who === 'global' && t.from !== 'probing');
  const after = f.outageEndMs ?? Number.POSITIVE_INFINITY;
  const reopened = (t: { at: number; from: string }): boolean =>
    t.at >= after && (t.from === 'closed' || t.from === 'ramping');
  const localOpens = opens.filter((t) => t.who !== 'global' && reopened(t)).length;
  const retrips = f.hasController ? globalOpens.filter(reopened).length : localOpens;

  let timeToRecoveredMs: number | null = null;
  if (f.outageEndMs !== null) {
    const sustainable = Math.min(f.demandPerSec, f.servableAfterPerSec) * RECOVERED_SHARE;
    const window = STABLE_MS / 1000;
    const openSeconds = new Set(opens.map((t) => Math.floor(t.at / 1000)));
    for (let s = Math.ceil(f.outageEndMs / 1000); s + window <= seconds; s++) {
      let accepted = 0;
      let quiet = true;
      for (let k = s; k < s + window; k++) {
        accepted += rec.successes.at(k);
        if (openSeconds.has(k)) quiet = false;
      }
      if (quiet && accepted / window >= sustainable) {
        timeToRecoveredMs = s * 1000 - f.outageEndMs;
        break;
      }
    }
  }

  return {
    peakAttemptsPerSec: wave.peak,
    peakAttemptsAtMs: wave.atMs,
    peakAttemptsAfterWave: afterWave.peak,
    acceptedWork: sum((p) => p.accepted),
    failedAttempts: sum((p) => p.failed),
    retryVolume: sum((p) => p.retries),
    probes: sum((p) => p.probes),
    probeLatencyP95Ms: p95(rec.probeLatencies),
    timeToRecoveredMs,
    hadOutage: f.outageEndMs !== null,
    globalOpens: globalOpens.length,
    probeFailureReopens: probeReopens.length,
    falseGlobalOpens: globalOpens.filter((t) => providerHealthyAt(t.at, f)).length,
    retripsAfterRecovery: retrips,
    localOpensAfterOutage: localOpens,
    acceptedShareOfServable: shareOfServable(rec, f),
    acceptedLatencyP95Ms: p95(rec.acceptedLatencies), // collected from the outage's end only
    maxAttemptedOverServable: attemptedOverServable(series, rec, f),
    shortfall:
      f.hasController && f.outageEndMs !== null
        ? shortfallByPhase(groupTransitions, (s) => rec.successes.at(s), {
            outageEndMs: f.outageEndMs,
            durationMs: f.durationMs,
            servableAfterPerSec: f.servableAfterPerSec,
          })
        : null,
    wastedCalls: f.wastedCalls,
    maxQueueDepthByRegion: f.maxQueueDepthByRegion,
    shedWork: rec.shedWork,
    failedWork: rec.failedWork,
    isolatedInstances: f.isolatedInstances,
    budgetViolations: [
      ...rec.budgetViolations,
      ...(f.pool
        ? probeAndRampOverruns(series, f.pool).map(
            (o) => `t=${o.t}s ${o.state}: ${o.attempts} attempts > ${o.limit} allowed`,
          )
        : []),
    ],
    globalTransitions: groupTransitions.map((t) => ({
      at: Math.round(t.at),
      from: t.from,
      to: t.to,
      ...(t.reason ? { reason: t.reason } : {}),
      ...(t.figures ? { figures: t.figures } : {}),
    })),
    series,
  };
}
