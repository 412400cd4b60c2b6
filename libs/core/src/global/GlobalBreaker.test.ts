import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../pool/PoolConfig.js';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import { seededRng } from '../random/Rng.js';
import type { RampSample } from '../ramp/Gates.js';
import { stepBudget } from '../ramp/Allowance.js';
import {
  SHEDDING_LATENCY_INFLATION,
  SHEDDING_MIN_SUCCESS_RATE,
  sheddingThresholds,
} from '../ramp/Shedding.js';
import { BISECT_PRECISION, LEVEL_DECREASE, MIN_GROWTH_SHARE, SLIPPED_DECREASE } from '../ramp/RampLevel.js';
import {
  admittedLevel,
  applyOperatorAction,
  ceilingRetryWaitMs,
  DRAIN_DWELLS,
  DRAIN_SHARE,
  drainLevel,
  initialGlobalState,
  judgeDrain,
  judgingWindowMs,
  saturatedGrowth,
  underTheTop,
  USED_SHARE,
  SETTLED_WINDOW_DWELLS,
  OPERATOR_ACTIONS,
  onProbeResult,
  onQuorum,
  onTick,
  type Decision,
  type GlobalBreakerState,
  type OperatorAction,
} from './GlobalBreaker.js';

const base = DEFAULT_POOL('llm', 'llm');
// stated here, so the tests read the policy and not whatever the defaults are today
const pool: PoolConfig = {
  ...base,
  probe: { ...base.probe, cooldownMs: 5000, intervalMs: 2000, ratePerSec: 1, probesToPass: 2 },
  ramp: {
    ...base.ramp,
    steps: [0.01, 1],
    dwellMs: 2000,
    minSample: 10,
    growth: 3,
    probeGrowth: 1.1,
    headroom: 0.05,
    latencyInflation: 3,
  },
};
const DWELL = pool.ramp.dwellMs;
/** the gates a step of a provider that does (or does not) shed cleanly is judged on */
const stepGates = (shedsCleanly: boolean) =>
  sheddingThresholds(pool.ramp.gates, pool.ramp.latencyInflation, shedsCleanly).gates;
const rng = () => seededRng(42);
const reached = { reached: true, open: 6, live: 10, threshold: 5, formedBy: ['a', 'b'] };

// the probes answer in 200 ms: a level at 200 ms shows no queueing
const good: RampSample = {
  attempts: 1000,
  successes: 1000,
  rateLimited: 0,
  latencyP95Ms: 200,
  ttftP95Ms: 100,
  queueAgeMs: 0,
};
const degraded: RampSample = { ...good, successes: 900 };
const collapsed: RampSample = { ...good, successes: 100 };
const thin: RampSample = { ...good, attempts: 9, successes: 9 };

function opened(now = 0): GlobalBreakerState {
  return onQuorum(initialGlobalState(0), reached, now, pool, rng()).next;
}

/** OPEN → PROBING → RAMPING(0) at `now`. */
function ramping(now = 100_000): GlobalBreakerState {
  let s = onTick(opened(now - 60_000), { now: now - 1, rng: rng(), pool }).next;
  expect(s.state).toBe('probing');
  s = onProbeResult(s, { outcome: 'success', latencyMs: 200 }, pool, now, rng()).next;
  s = onProbeResult(s, { outcome: 'success', latencyMs: 200 }, pool, now, rng()).next;
  expect(s).toMatchObject({ state: 'ramping', step: 0, level: 0.01, stepSince: now, baselineLatencyMs: 200 });
  return s;
}

function tick(s: GlobalBreakerState, now: number, sample?: RampSample): Decision {
  return onTick(s, sample ? { now, rng: rng(), pool, sample } : { now, rng: rng(), pool });
}

/**
 * After a step back: the tick at the end of a drain that held (a good sample), which lands on the
 * level drained for (a new step, recorded) or, after a shallow drain, restarts the landing step's window.
 */
function drained(s: GlobalBreakerState): GlobalBreakerState {
  if (s.drainingUntil === null || s.drainingUntil === undefined) return s;
  const d = tick(s, s.drainingUntil, good);
  const landing = s.drainTo ?? null;
  if (landing !== null) {
    expect(d.transitions).toHaveLength(1);
    expect(d.transitions[0]!.reason).toContain('drained');
    // judged on the drain's sample, and carries it
    expect(d.transitions[0]!.figures.gates).toMatchObject({ outcome: 'pass', attempts: good.attempts });
    expect(d.next).toMatchObject({ step: s.step! + 1, level: landing, stepSince: s.drainingUntil });
  } else {
    expect(d.transitions).toEqual([]);
    expect(d.next).toMatchObject({ step: s.step, stepSince: s.drainingUntil });
  }
  expect(d.next).toMatchObject({ drainingUntil: null, drainTo: null });
  return d.next;
}

/** One pass once the level's judging window (a dwell, longer near the limit) is over, +1 ms. */
function pass(s: GlobalBreakerState, sample: RampSample = good): Decision {
  return tick(s, s.stepSince! + judgingWindowMs(s, DWELL) + 1, sample);
}

/** Passes levels until the ramp settles (at most 20 moves). */
function settle(s: GlobalBreakerState): GlobalBreakerState {
  for (let i = 0; i < 20 && !s.settled; i++) s = pass(s).next;
  expect(s.settled).toBe(true);
  return s;
}

/** Passes steps from `s` until `step` is reached, one dwell (+1 ms) each. */
function climbTo(s: GlobalBreakerState, step: number): GlobalBreakerState {
  while (s.step! < step) s = tick(s, s.stepSince! + DWELL + 1, good).next;
  return s;
}

describe('CLOSED → OPEN on quorum', () => {
  it('opens with a new epoch and a jittered base cooldown, recording the quorum figures', () => {
    const d = onQuorum(initialGlobalState(0), reached, 1000, pool, rng());
    expect(d.next).toMatchObject({ state: 'open', epoch: 1, since: 1000, failedRecoveries: 0 });
    const cooldown = d.next.cooldownUntil! - 1000;
    expect(cooldown).toBeGreaterThanOrEqual(4000);
    expect(cooldown).toBeLessThanOrEqual(5000);
    expect(d.transitions).toEqual([
      expect.objectContaining({
        from: 'closed',
        to: 'open',
        epoch: 1,
        actor: 'quorum',
        figures: {
          quorum: { open: 6, live: 10, threshold: 5, formedBy: ['a', 'b'] },
          cooldownMs: cooldown,
          failedRecoveries: 0,
        },
      }),
    ]);
  });

  it('ignores a quorum not reached, and any quorum outside CLOSED', () => {
    const s = initialGlobalState(0);
    expect(onQuorum(s, { ...reached, reached: false }, 1, pool, rng())).toEqual({ next: s, transitions: [] });
    const o = opened();
    expect(onQuorum(o, reached, 5, pool, rng()).transitions).toEqual([]);
  });
});

describe('OPEN → PROBING after the cooldown', () => {
  it('stays OPEN at T−1 ms and probes at T+1 ms', () => {
    const s = opened();
    const T = s.cooldownUntil!;
    expect(tick(s, T - 1)).toEqual({ next: s, transitions: [] });
    const d = tick(s, T + 1);
    expect(d.next).toMatchObject({ state: 'probing', cooldownUntil: null, probesPassed: 0, epoch: 1 });
    expect(d.transitions[0]).toMatchObject({ from: 'open', to: 'probing', actor: 'cooldown' });
  });
});

describe('PROBING', () => {
  const probing = () => tick(opened(), 40_000).next;

  it('ramps from the start level once probesToPass probes passed the gates', () => {
    const one = onProbeResult(probing(), { outcome: 'success', latencyMs: 100 }, pool, 41_000, rng());
    expect(one.next).toMatchObject({ state: 'probing', probesPassed: 1 });
    expect(one.transitions[0]!.reason).toBe('probe passed (1 of 2)');
    const two = onProbeResult(
      one.next,
      { outcome: 'success', latencyMs: 100, ttftMs: 50 },
      pool,
      42_000,
      rng(),
    );
    expect(two.next).toMatchObject({
      state: 'ramping',
      step: 0,
      level: 0.01,
      stepSince: 42_000,
      settled: false,
    });
    expect(two.transitions[0]).toMatchObject({ from: 'probing', to: 'ramping', step: 0, actor: 'probe' });
  });

  it('a failed probe reopens (new epoch) for a short jittered interval, without counting a failed recovery', () => {
    const d = onProbeResult(probing(), { outcome: 'overload', latencyMs: 30_000 }, pool, 41_000, rng());
    expect(d.next).toMatchObject({ state: 'open', epoch: 2, failedRecoveries: 0 });
    const wait = d.next.cooldownUntil! - 41_000;
    expect(wait).toBeGreaterThanOrEqual(1000);
    expect(wait).toBeLessThanOrEqual(3000);
    const slowSuccess = onProbeResult(
      probing(),
      { outcome: 'success', latencyMs: 2001 },
      pool,
      41_000,
      rng(),
    );
    expect(slowSuccess.next.state).toBe('open');
  });

  it("reasons give durations in whole milliseconds (a tenth under 10 ms), however finely the SDK's timer or the clock reads", () => {
    const quick = onProbeResult(
      probing(),
      { outcome: 'overload', latencyMs: 2.152099609375 },
      pool,
      41_000,
      rng(),
    );
    expect(quick.transitions[0]!.reason).toBe('probe failed (overload, 2.2 ms)');
    const slow = onProbeResult(probing(), { outcome: 'network', latencyMs: 1499.5 }, pool, 41_000, rng());
    expect(slow.transitions[0]!.reason).toBe('probe failed (network, 1500 ms)');
    const s = opened();
    const probed = tick(s, s.cooldownUntil! + 0.456951007247);
    expect(probed.transitions[0]!.reason).toMatch(/^cooldown over after \d+ ms \(failed recoveries: 0\)$/);
  });

  it('property: however many probes fail in a row, the next waits within [max(½ interval, 1 s / rate), 1½ interval]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 10 }),
        fc.nat(),
        (failures, intervalMs, ratePerSec, seed) => {
          const p = { ...pool, probe: { ...pool.probe, intervalMs, ratePerSec } };
          const r = seededRng(seed);
          let s = onQuorum(initialGlobalState(0), reached, 0, p, r).next;
          for (let k = 0; k < failures; k++) {
            s = onTick(s, { now: s.cooldownUntil!, rng: r, pool: p }).next;
            expect(s.state).toBe('probing');
            const at = s.since + 10;
            s = onProbeResult(s, { outcome: 'network', latencyMs: 10 }, p, at, r).next;
            const wait = s.cooldownUntil! - at;
            expect(wait).toBeGreaterThanOrEqual(Math.max(0.5 * intervalMs, 1000 / ratePerSec) - 1e-6);
            expect(wait).toBeLessThanOrEqual(Math.max(1.5 * intervalMs, 1000 / ratePerSec) + 1e-6);
            expect(s.failedRecoveries).toBe(0);
          }
        },
      ),
      { seed: 13 },
    );
  });

  it('ignores neutral outcomes, stale epochs, and results outside PROBING', () => {
    const p = probing();
    expect(onProbeResult(p, { outcome: 'rate_limited', latencyMs: 1 }, pool, 41_000, rng()).next).toBe(p);
    expect(
      onProbeResult(p, { outcome: 'success', latencyMs: 1, epoch: p.epoch - 1 }, pool, 41_000, rng()).next,
    ).toBe(p);
    const c = initialGlobalState(0);
    expect(onProbeResult(c, { outcome: 'success', latencyMs: 1 }, pool, 1, rng()).next).toBe(c);
  });
});

describe('RAMPING: growth and the dwell', () => {
  it('grows ×growth on pass only after the dwell floor (T−1 ms / T+1 ms), as a new step with a fresh window', () => {
    const s = ramping(0);
    expect(tick(s, DWELL - 1, good)).toEqual({ next: s, transitions: [] });
    const d = tick(s, DWELL + 1, good);
    expect(d.next).toMatchObject({ step: 1, stepSince: DWELL + 1, heldLevel: 0.01 });
    expect(d.next.level).toBeCloseTo(0.03, 10);
    expect(d.transitions[0]).toMatchObject({
      from: 'ramping',
      to: 'ramping',
      fromStep: 0,
      step: 1,
      actor: 'ramp',
    });
    expect(d.transitions[0]!.figures.level).toBeCloseTo(0.03, 10);
  });

  it('the dwell ends when the level has its minimum sample: a thin sample waits however long', () => {
    const s = ramping(0);
    expect(tick(s, 60 * DWELL, thin).next).toBe(s);
    expect(tick(s, 60 * DWELL, good).next.step).toBe(1);
  });

  it('a pass counts only once the level was used: USED_SHARE of a dwell at its rate, or at the demand when lower', () => {
    let s = ramping(0);
    for (let i = 0; i < 4; i++) s = pass(s).next; // 0.01 → 0.03 → 0.09 → 0.27 → 0.81
    expect(s.level).toBeCloseTo(0.81, 10);
    const rate = 0.81 * pool.capacity.standard!.ratePerSec;
    const needed = Math.floor(USED_SHARE * rate * (DWELL / 1000));
    const t = s.stepSince! + DWELL + 1;
    const few = { ...good, attempts: needed - 1, successes: needed - 1 };
    expect(onTick(s, { now: t, rng: rng(), pool, sample: few }).next).toBe(s);
    const enough = { ...good, attempts: needed, successes: needed };
    expect(onTick(s, { now: t, rng: rng(), pool, sample: enough }).next.level).toBe(1);
    // a fleet that wants less than the level admits proves it at its demand
    const demand = { standard: 10 };
    const thinButAll = { ...good, attempts: 10, successes: 10 };
    expect(onTick(s, { now: t, rng: rng(), pool, sample: thinButAll, demand }).next.level).toBe(1);
  });

  it('collapse acts before the dwell is over', () => {
    expect(tick(ramping(0), 1, collapsed).next.state).toBe('open');
  });

  it('growth shrinks as latency inflates: ×3 at the baseline, ×2 at 1.5×, saturated from 2× (settles), degraded past 3×', () => {
    const s = climbTo(ramping(0), 1); // held 0.01, level 0.03
    const at = (latencyP95Ms: number) => pass(s, { ...good, latencyP95Ms }).next;
    expect(at(200).level! / s.level!).toBeCloseTo(3, 10);
    expect(at(300).level! / s.level!).toBeCloseTo(2, 10);
    // the growth just under 2× is still a move worth judging; from 2× (1 + 2·MIN_GROWTH_SHARE, under
    // BISECT_PRECISION) it is not: the ramp settles at the level, a bisection step above it as the limit
    expect(at(390).level! / s.level!).toBeGreaterThan(1 + BISECT_PRECISION);
    for (const p95 of [400, 599]) {
      const settled = at(p95);
      expect(settled).toMatchObject({ level: s.level, settled: true, heldLevel: s.level });
      expect(settled.failedLevel! / s.level!).toBeCloseTo(1 + BISECT_PRECISION, 10);
      expect(saturatedGrowth(s.level!, s.level! * (1 + 2 * MIN_GROWTH_SHARE), 1)).toBe(true);
    }
    const inflated = pass(s, { ...good, latencyP95Ms: 601 });
    expect(inflated.next.drainTo).toBe(0.01);
    expect(inflated.next.level).toBe(0.01); // the start level: no drain below it
    expect(inflated.next.failedLevel).toBeCloseTo(0.03, 10);
    expect(inflated.transitions[0]!.figures.gates!.failed).toEqual(['latencyInflation']);
    // the record says what the gate read: the p95 over the recovery's lowest
    expect(inflated.transitions[0]!.figures.latencyRatio).toBeCloseTo(601 / s.baselineLatencyMs!, 3);
    expect(inflated.transitions[0]!.figures.baselineLatencyMs).toBe(s.baselineLatencyMs);
  });

  it('saturated: after the wait the ramp tries one bisection step above (a real move), not the spent growth', () => {
    const s = climbTo(ramping(0), 1);
    const settling = pass(s, { ...good, latencyP95Ms: 450 });
    const settled = settling.next;
    expect(settled.settled).toBe(true);
    // the log marks the move that settled (the simulator's shortfall by phase reads it), not the try after
    expect(settling.transitions[0]!.figures.settled).toBe(true);
    // within the wait: still settled at the level, a fresh window each time
    const waiting = tick(settled, settled.nextStepUpAfter! - 1, { ...good, latencyP95Ms: 450 }).next;
    expect(waiting).toMatchObject({ level: s.level, settled: true });
    const retry = tick(waiting, settled.nextStepUpAfter! + judgingWindowMs(waiting, DWELL), {
      ...good,
      latencyP95Ms: 450,
    });
    const retried = retry.next;
    expect(retried.level! / s.level!).toBeCloseTo(1 + BISECT_PRECISION, 10);
    expect(retried).toMatchObject({ settled: false, failedLevel: null });
    expect(retry.transitions[0]!.figures.settled).toBeUndefined();
  });

  it('never admits more than the top level, and closes once the top level held (recovered: learned = top)', () => {
    let s = ramping(0);
    for (let i = 0; i < 20 && s.state === 'ramping'; i++) {
      const d = pass(s);
      if (d.next.state === 'ramping') expect(d.next.level!).toBeLessThanOrEqual(1);
      s = d.next;
    }
    expect(s).toMatchObject({
      state: 'closed',
      failedRecoveries: 0,
      step: null,
      level: null,
      sustainedLevel: 1,
    });
  });
});

describe('RAMPING: finding the limit', () => {
  /** ramping at 0.03 (0.01 held), then 0.09 degraded: back to 0.03, limit 0.09 */
  function limited(): GlobalBreakerState {
    let s = pass(ramping(0)).next; // 0.03
    s = pass(s).next; // 0.09
    const d = pass(s, degraded);
    expect(d.next.drainTo).toBeCloseTo(0.03, 10);
    expect(d.next.level).toBeCloseTo(0.03 * DRAIN_SHARE, 10);
    expect(d.next.failedLevel).toBeCloseTo(0.09, 10);
    expect(d.transitions[0]!.reason).toContain('back to 3 %');
    return d.next;
  }

  it('a level that degrades drains below the last that held for DRAIN_DWELLS (T−1 ms / T), then lands on it', () => {
    const s = limited();
    const until = s.stepSince! + DRAIN_DWELLS * DWELL;
    expect(s.drainingUntil).toBe(until);
    expect(tick(s, until - 1, collapsed).next).toBe(s);
    expect(drained(s)).toMatchObject({ stepSince: until, level: 0.03 });
  });

  it('a shallow drain ignores its sample: a failing one only restarts the window', () => {
    const s = limited();
    expect(s.drainTo).not.toBeNull();
    const shallow = { ...s, drainTo: null };
    const d = tick(shallow, shallow.drainingUntil!, collapsed);
    expect(d.transitions).toEqual([]);
    expect(d.next).toMatchObject({ level: s.level, drainingUntil: null, stepSince: s.drainingUntil });
  });

  it('a drain that failed lands lower, at what it delivered less headroom, and drains again below it', () => {
    const s = limited(); // draining at 0.03 × DRAIN_SHARE toward 0.03
    // half the drain's calls failed: it delivered half its level
    const half: RampSample = { ...good, attempts: 100, successes: 50 };
    const d = tick(s, s.drainingUntil!, half);
    const relanded = s.level! * 0.5 * (1 - pool.ramp.headroom);
    expect(d.transitions).toHaveLength(1);
    expect(d.transitions[0]!.reason).toContain('drain at level');
    expect(d.transitions[0]!.figures.gates).toMatchObject({ attempts: 100, successRate: 0.5 });
    expect(d.next.drainTo).toBeCloseTo(relanded, 10);
    expect(d.next.heldLevel).toBeCloseTo(relanded, 10);
    expect(d.next.level).toBeCloseTo(drainLevel(pool.ramp, relanded), 10);
    expect(d.next).toMatchObject({ step: s.step! + 1, stepSince: s.drainingUntil });
    expect(d.next.drainingUntil).toBe(s.drainingUntil! + DRAIN_DWELLS * DWELL);
    // a drain that held then lands on it
    expect(drained(d.next).level).toBeCloseTo(relanded, 10);
  });

  it("property: a failed drain never lands higher than its landing nor below the start level; a passing one keeps it; the success gate is the step's", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.011, max: 1, noNaN: true }),
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        fc.boolean(),
        (landing, share, attempts, successes, shedsCleanly) => {
          const level = drainLevel(pool.ramp, landing) * share;
          const sample: RampSample = { ...good, attempts, successes: Math.min(successes, attempts) };
          const { gates, relanded: r } = judgeDrain(
            pool.ramp,
            stepGates(shedsCleanly),
            landing,
            level,
            sample,
          );
          expect(gates.attempts).toBe(attempts);
          if (r !== null) {
            expect(['degrade', 'collapse']).toContain(gates.outcome);
            expect(r).toBeLessThan(landing);
            expect(r).toBeGreaterThanOrEqual(pool.ramp.steps[0]!);
            expect(r).toBeGreaterThanOrEqual(
              level * (sample.successes / attempts) * (1 - pool.ramp.headroom) - 1e-12,
            );
          }
          // judged on the success rate a step of this provider is judged on
          const minRate = shedsCleanly ? SHEDDING_MIN_SUCCESS_RATE : pool.ramp.gates.minSuccessRate;
          if (attempts >= pool.ramp.minSample && sample.successes >= minRate * attempts) expect(r).toBeNull();
          if (attempts >= pool.ramp.minSample && sample.successes < minRate * attempts)
            expect(['degrade', 'collapse']).toContain(gates.outcome);
        },
      ),
    );
  });

  it('a drain is judged on the gates a step is judged on: a clean shedder relands on errors the pool tolerates', () => {
    const s = limited(); // draining at 0.03 × DRAIN_SHARE toward 0.03
    // 97 % answered: within the pool's minSuccessRate, under the one a clean shedder is judged by
    const shed: RampSample = { ...good, attempts: 100, successes: 97 };
    expect(shed.successes / shed.attempts).toBeGreaterThanOrEqual(pool.ramp.gates.minSuccessRate);
    expect(shed.successes / shed.attempts).toBeLessThan(SHEDDING_MIN_SUCCESS_RATE);
    expect(drained(s).level).toBe(0.03);
    expect(tick(s, s.drainingUntil!, shed).next).toMatchObject({ level: 0.03, drainingUntil: null });
    const relanded = tick({ ...s, shedsCleanly: true }, s.drainingUntil!, shed).next;
    expect(relanded.drainTo).toBeCloseTo(s.level! * 0.97 * (1 - pool.ramp.headroom), 10);
    // a drain's latency is the queue the level above left: it never relands a drain on its own
    // (6× the probes' 200 ms: past either inflation gate, under the pool's absolute p95 gate)
    const slow: RampSample = { ...good, latencyP95Ms: 1200 };
    expect(slow.latencyP95Ms).toBeLessThan(pool.ramp.gates.maxLatencyP95Ms);
    expect(slow.latencyP95Ms! / good.latencyP95Ms!).toBeGreaterThan(SHEDDING_LATENCY_INFLATION);
    for (const shedsCleanly of [false, true])
      expect(judgeDrain(pool.ramp, stepGates(shedsCleanly), 0.03, s.level!, slow)).toMatchObject({
        gates: { outcome: 'pass' },
        relanded: null,
      });
  });

  it('a drain never goes below the start level unless the landing does', () => {
    expect(drainLevel(pool.ramp, 0.5)).toBeCloseTo(0.5 * DRAIN_SHARE, 10);
    expect(drainLevel(pool.ramp, 0.011)).toBe(0.01);
    expect(drainLevel(pool.ramp, 0.005)).toBe(0.005);
  });

  it('a level near the limit (between one that held and one that failed) is judged over SETTLED_WINDOW_DWELLS (T−1 ms / T+1 ms)', () => {
    const s = drained(limited());
    expect(s.failedLevel).not.toBeNull();
    const W = SETTLED_WINDOW_DWELLS * DWELL;
    expect(judgingWindowMs(s, DWELL)).toBe(W);
    expect(tick(s, s.stepSince! + W - 1, good).next).toBe(s);
    expect(tick(s, s.stepSince! + W + 1, good).next.level).toBeGreaterThan(s.level!);
    expect(judgingWindowMs({ settled: false, failedLevel: null }, DWELL)).toBe(DWELL);
  });

  it('bisects between the level that held and the one that failed, capped at (1 − headroom) × failed, then settles', () => {
    let s = drained(limited());
    const seen: number[] = [];
    for (let i = 0; i < 20 && !s.settled; i++) {
      s = pass(s).next;
      seen.push(s.level!);
      expect(s.level!).toBeLessThanOrEqual(0.09 * (1 - pool.ramp.headroom) + 1e-12);
    }
    expect(s.settled).toBe(true);
    expect(seen[0]).toBeCloseTo((0.03 + 0.09) / 2, 10);
    // settled within BISECT_PRECISION of the headroom cap
    expect(s.level!).toBeGreaterThanOrEqual(
      (0.09 * (1 - pool.ramp.headroom)) / (1 + BISECT_PRECISION) - 1e-12,
    );
    expect(s.sustainedLevel).toBe(s.level);
  });

  it('settled: recorded once, judged over longer windows, and tried higher only after the wait (T−1 ms / T+1 ms)', () => {
    let s = drained(limited());
    let transitions = 0;
    s = settle(s);
    const settledLevel = s.level!;
    const retryAt = s.nextStepUpAfter!;
    expect(retryAt - s.stepSince!).toBe(ceilingRetryWaitMs(DWELL, 0));
    // a settled level is not judged before SETTLED_WINDOW_DWELLS dwells
    expect(tick(s, s.stepSince! + SETTLED_WINDOW_DWELLS * DWELL - 1, degraded).next).toBe(s);
    const W = SETTLED_WINDOW_DWELLS * DWELL;
    for (let i = 0; i < 100 && s.stepSince! + W < retryAt; i++) {
      const d = tick(s, s.stepSince! + W, good);
      transitions += d.transitions.length;
      expect(d.next.level).toBe(settledLevel);
      s = d.next;
    }
    expect(transitions).toBe(0);
    // the first judgement at or after retryAt tries above; one just before it (T−1 ms) does not
    const judged = Math.max(retryAt, s.stepSince! + W);
    if (judged === retryAt) expect(tick(s, retryAt - 1, good).next.level).toBe(settledLevel);
    const after = tick(s, judged + 1, good);
    expect(after.next.level).toBeCloseTo(settledLevel * pool.ramp.probeGrowth, 10);
    expect(after.next.failedLevel).toBeNull();
    expect(after.transitions[0]!.reason).toContain('above the limit found');
  });

  it('the wait before trying above a limit grows each time the limit is found again, up to a cap', () => {
    expect(ceilingRetryWaitMs(DWELL, 1)).toBe(2 * ceilingRetryWaitMs(DWELL, 0));
    expect(ceilingRetryWaitMs(DWELL, 50)).toBe(ceilingRetryWaitMs(DWELL, 5));
  });

  it('a level that held and then degrades (slipped), with nothing lower known, falls by SLIPPED_DECREASE without a deeper drain', () => {
    let s = drained(limited());
    s = settle(s);
    const settledLevel = s.level!;
    const d = tick(s, s.stepSince! + SETTLED_WINDOW_DWELLS * DWELL + 1, degraded);
    expect(d.next.level).toBeCloseTo(settledLevel * SLIPPED_DECREASE, 10);
    expect(d.next.drainTo).toBeNull();
    expect(d.next.drainingUntil).toBe(d.next.stepSince! + DRAIN_DWELLS * DWELL);
    expect(d.next).toMatchObject({ heldLevel: null, settled: false });
    expect(d.next.failedLevel).toBeCloseTo(settledLevel, 10);
  });

  it('a level that held and then degrades on latency alone falls by (gate / ratio)² of it: 3 % just over the gate, up to 20 % far over it; at the top 3 %', () => {
    let s = drained(limited());
    s = settle(s);
    const settledLevel = s.level!;
    const at = s.stepSince! + SETTLED_WINDOW_DWELLS * DWELL + 1;
    // the lowest p95 is 200 ms and the gate 3×: 605 ms is a burst's queue, 640 ms and 800 ms are not
    const slip = (p95: number) => tick(s, at, { ...good, latencyP95Ms: p95 });
    expect(slip(605).next.level).toBeCloseTo(settledLevel * SLIPPED_DECREASE, 10);
    const over = slip(640);
    expect(over.next.level).toBeCloseTo(settledLevel * (3 / 3.2) ** 2, 10);
    expect(over.transitions[0]!.figures.gates!.failed).toEqual(['latencyInflation']);
    expect(over.next).toMatchObject({ heldLevel: null, settled: false, drainTo: null });
    expect(slip(800).next.level).toBeCloseTo(settledLevel * LEVEL_DECREASE, 10);
    // the top level, held and settled (the fleet wants more than it allows), slips 3 % however high the p95
    const top: GlobalBreakerState = { ...s, level: 1, heldLevel: 1, failedLevel: null, settled: true };
    expect(tick(top, at, { ...good, latencyP95Ms: 800 }).next.level).toBeCloseTo(SLIPPED_DECREASE, 10);
  });

  it('a level that slipped from the top retries toward it at once; below a limit the ramp found, or within a step of the top, it waits', () => {
    // slipped from the top (held there, then degraded): the top is the limit, 0.97 what is left
    const slipped = (level: number, failedLevel: number): GlobalBreakerState => ({
      ...ramping(0),
      step: 6,
      level,
      heldLevel: null,
      failedLevel,
      sustainedLevel: failedLevel,
    });
    const underTop = pass(slipped(SLIPPED_DECREASE, 1));
    expect(underTop.next.level).toBe(1);
    expect(underTop.next).toMatchObject({ settled: false, failedLevel: null });
    expect(underTop.transitions[0]!.reason).toContain('above the limit found');
    // the same slip below a limit the ramp found (0.5): settled, tried above only after the wait
    const underLimit = pass(slipped(0.5 * SLIPPED_DECREASE, 0.5));
    expect(underLimit.next).toMatchObject({ level: 0.5 * SLIPPED_DECREASE, settled: true });
    expect(underLimit.next.nextStepUpAfter! - underLimit.next.stepSince!).toBe(ceilingRetryWaitMs(DWELL, 0));
    // within a bisection step of the top: a retry at once would flap at the top
    const nearTop = pass(slipped(0.99, 1));
    expect(nearTop.next).toMatchObject({ level: 0.99, settled: true });
    expect(underTheTop(1, 0.99, 1)).toBe(false);
    expect(underTheTop(1, 1 / (1 + BISECT_PRECISION) - 1e-9, 1)).toBe(true);
  });

  it('collapse lands at once on the last level that held (no higher than what the level delivered, less headroom) and lowers the learned level; at the start level it reopens', () => {
    const s = pass(pass(ramping(0)).next).next; // 0.09, held 0.03
    // 45 % of the attempts succeeded: 0.09 × 0.45 delivered, above the 0.03 that held
    const d = tick(s, s.stepSince! + 1, { ...good, successes: 450 });
    expect(d.transitions[0]!.figures.gates!.outcome).toBe('collapse');
    expect(d.next.drainTo).toBeCloseTo(0.03, 10);
    expect(d.next.level).toBeCloseTo(0.03 * DRAIN_SHARE, 10);
    expect(d.next.sustainedLevel!).toBeCloseTo(0.09 * LEVEL_DECREASE, 10);
    // 10 % succeeded: 0.009 delivered, below the start level: lands on the start level, which now held last
    const low = tick(s, s.stepSince! + 1, collapsed);
    expect(low.next).toMatchObject({ drainTo: 0.01, level: 0.01, heldLevel: 0.01 });
    expect(low.transitions[0]!.reason).toContain('what it delivered');
    const first = ramping(0);
    const r = tick(first, 1, collapsed);
    expect(r.next).toMatchObject({ state: 'open', failedRecoveries: 1, epoch: first.epoch + 1 });
    const cooldown = r.next.cooldownUntil! - 1;
    expect(cooldown).toBeGreaterThanOrEqual(0.8 * 2 * pool.probe.cooldownMs);
    expect(cooldown).toBeLessThanOrEqual(2 * pool.probe.cooldownMs);
    expect(r.next.sustainedLevel!).toBeCloseTo(0.01 * LEVEL_DECREASE, 10);
  });

  it('a collapse on the level a failure stepped back to learns from the failed level above it, not from itself', () => {
    const s = pass(pass(ramping(0)).next).next; // 0.09, held 0.03
    const back = drained(pass(s, degraded).next);
    expect(back.level).toBeCloseTo(0.03, 10);
    expect(back.failedLevel).toBeCloseTo(0.09, 10);
    // the provider lost health while 0.09 queued: the landing collapses in the aftermath and reopens
    const d = tick(back, back.stepSince! + 1, collapsed);
    expect(d.next).toMatchObject({ state: 'open', failedRecoveries: 1 });
    expect(d.next.sustainedLevel!).toBeCloseTo(0.09 * LEVEL_DECREASE, 10);
  });

  it('a degrade at the start level with nothing lower reopens', () => {
    const d = pass(ramping(0), degraded);
    expect(d.next).toMatchObject({ state: 'open', failedRecoveries: 1 });
  });
});

describe('RAMPING: a provider that sheds cleanly (ramp/Shedding.ts)', () => {
  // samples that count their timeouts (`good` does not, so nothing else here learns shedding)
  const counted: RampSample = { ...good, attempts: 100, successes: 100, timedOut: 0 };
  const shedding: RampSample = { ...counted, successes: 96 }; // 4 quick errors: passes the 95 % gate

  /** ramping at 0.09 (0.03 held), the provider sheds there, and the next level confirms it */
  function learned(): GlobalBreakerState {
    const s = climbTo(ramping(0), 2);
    expect(s.level).toBeCloseTo(0.09, 10);
    const seen = pass(s, shedding);
    expect(seen.next).toMatchObject({ shedsCleanly: false, shedSeenLevel: s.level });
    expect(seen.next.level).toBeGreaterThan(s.level!); // it passed: the ramp grew
    const confirmed = pass(seen.next, counted).next;
    expect(confirmed).toMatchObject({ shedsCleanly: true, shedSeenLevel: null });
    return confirmed;
  }

  it('learned, a level is judged by errors first: 3.5× the lowest p95 passes, 97 % success degrades', () => {
    const s = learned();
    const queued = pass(s, { ...counted, latencyP95Ms: 700 });
    // held (saturated: the growth is spent at 2×, so it settles there), not degraded
    expect(queued.next).toMatchObject({ level: s.level, heldLevel: s.level, settled: true });
    expect(queued.transitions[0]!.figures.gates!.failed).toEqual([]);
    const knee = pass(s, { ...counted, successes: 97 });
    expect(knee.next.level).toBeLessThan(s.level!);
    expect(knee.transitions[0]!.figures).toMatchObject({
      shedsCleanly: true,
      gates: { failed: ['successRate'] },
    });
    // not learned, the same latency degrades and the same errors pass
    const plain = climbTo(ramping(0), 3);
    expect(plain.shedsCleanly).toBe(false);
    const inflated = pass(plain, { ...counted, latencyP95Ms: 700 }).transitions[0]!.figures;
    expect(inflated.gates!.failed).toEqual(['latencyInflation']);
    expect(inflated.shedsCleanly).toBeUndefined();
    expect(pass(plain, { ...counted, successes: 97 }).next.level).toBeGreaterThan(plain.level!);
  });

  it('a drain judged as for a clean shedder says so in its figures (the log records the thresholds it was judged by)', () => {
    const s = learned();
    const knee = pass(s, { ...counted, successes: 97 }).next;
    expect(knee.drainingUntil).not.toBeNull();
    const end = tick(knee, knee.drainingUntil!, counted);
    expect(end.transitions[0]!.reason).toContain('drained');
    expect(end.transitions[0]!.figures).toMatchObject({ shedsCleanly: true, gates: { outcome: 'pass' } });
    // a drain not judged so carries no such figure
    const plain = pass(climbTo(ramping(0), 3), degraded).next;
    expect(tick(plain, plain.drainingUntil!, counted).transitions[0]!.figures.shedsCleanly).toBeUndefined();
  });

  it('quick errors with one timeout among them teach nothing', () => {
    const s = climbTo(ramping(0), 2);
    const seen = pass(s, { ...shedding, timedOut: 1 }).next;
    expect(seen.shedSeenLevel).toBeNull();
    expect(pass(seen, counted).next.shedsCleanly).toBe(false);
  });

  it('is kept across recoveries (closing keeps it, the pending evidence does not outlive its ramp); a collapse forgets it', () => {
    const s = learned();
    const closed = applyOperatorAction(s, 'force_close', '', s.stepSince! + 1, pool, rng(), 1000).next;
    expect(closed).toMatchObject({ state: 'closed', shedsCleanly: true, shedSeenLevel: null });
    const reopened = onQuorum(closed, reached, closed.since + 10_000, pool, rng()).next;
    expect(reopened.shedsCleanly).toBe(true);
    const collapse = tick(s, s.stepSince! + 1, { ...counted, successes: 10 });
    expect(collapse.next).toMatchObject({ shedsCleanly: false, shedSeenLevel: null });
  });

  it('declared by the pool (ramp.shedsCleanly): judged so from the first recovery, until a collapse refutes it for this breaker', () => {
    const declaring: PoolConfig = { ...pool, ramp: { ...pool.ramp, shedsCleanly: true } };
    const judged = (
      s: GlobalBreakerState,
      sample: RampSample,
      now = s.stepSince! + judgingWindowMs(s, DWELL) + 1,
    ) => onTick(s, { now, rng: rng(), pool: declaring, sample });
    const s = climbTo(ramping(0), 3);
    expect(s.shedsCleanly).toBe(false); // nothing learned: only the pool says so
    const queued = judged(s, { ...counted, latencyP95Ms: 700 });
    expect(queued.transitions[0]!.figures).toMatchObject({ shedsCleanly: true, gates: { failed: [] } });
    const knee = judged(s, { ...counted, successes: 97 });
    expect(knee.next.level).toBeLessThan(s.level!);
    expect(knee.transitions[0]!.figures.gates!.failed).toEqual(['successRate']);
    // a collapse refutes it, and is remembered
    const collapse = judged(s, { ...counted, successes: 10 }, s.stepSince! + 1);
    expect(collapse.next).toMatchObject({ shedsCleanly: false, shedDeclarationRefuted: true });
    // the log says so, once: the move that refuted it names it, a later collapse does not
    expect(collapse.transitions[0]!.figures.shedDeclarationRefuted).toBe(true);
    expect(collapse.transitions[0]!.reason).toMatch(
      /; the pool's ramp\.shedsCleanly is refuted for this breaker$/,
    );
    const again = judged(
      { ...s, shedDeclarationRefuted: true },
      { ...counted, successes: 10 },
      s.stepSince! + 1,
    );
    expect(again.transitions[0]!.reason).toMatch(/^collapse at level/);
    expect(again.transitions[0]!.figures.shedDeclarationRefuted).toBeUndefined();
    expect(again.transitions[0]!.reason).not.toContain('refuted');
    // from then on the same figures are judged as for any provider
    const refuted: GlobalBreakerState = { ...s, shedDeclarationRefuted: true };
    const inflated = judged(refuted, { ...counted, latencyP95Ms: 700 }).transitions[0]!.figures;
    expect(inflated.gates!.failed).toEqual(['latencyInflation']);
    expect(inflated.shedsCleanly).toBeUndefined();
    expect(judged(refuted, { ...counted, successes: 97 }).next.level).toBeGreaterThan(s.level!);
  });
});

describe('RAMPING: the learned level sizes the next recovery', () => {
  it('grows ×growth up to the learned level (not past it in one move), ×probeGrowth above it', () => {
    const s = { ...ramping(0), sustainedLevel: 0.05 };
    const a = pass(s).next;
    expect(a.level).toBeCloseTo(0.03, 10);
    const b = pass(a).next;
    expect(b.level).toBeCloseTo(0.05, 10);
    const c = pass(b).next;
    expect(c.level).toBeCloseTo(0.05 * pool.ramp.probeGrowth, 10);
  });

  it('is kept across epochs: closing learns the top, a collapse lowers it, an operator force_close keeps it', () => {
    const learned = { ...ramping(0), sustainedLevel: 0.4 };
    const collapsedOnce = tick(learned, 1, collapsed).next;
    expect(collapsedOnce.sustainedLevel!).toBeCloseTo(0.01 * LEVEL_DECREASE, 10);
    const forced = applyOperatorAction(learned, 'force_close', '', 5, pool, rng()).next;
    expect(forced.sustainedLevel).toBe(0.4);
    const reopened = onQuorum(forced, reached, 10, pool, rng()).next;
    expect(reopened.sustainedLevel).toBe(0.4);
  });
});

describe('the top level closes only when it is not binding', () => {
  const at = (s: GlobalBreakerState, now: number, demand: number) =>
    onTick(s, { now, rng: rng(), pool, sample: good, demand: { standard: demand } });
  const rate = pool.capacity.standard!.ratePerSec;
  function atTop(): GlobalBreakerState {
    let s = ramping(0);
    for (let i = 0; i < 20 && s.level! < 1; i++) s = pass(s).next;
    expect(s.level).toBe(1);
    return s;
  }

  it('stays at the top, settled and recorded once, while the fleet wants more than it allows', () => {
    const s = atTop();
    const d = at(s, s.stepSince! + DWELL + 1, rate * 2);
    expect(d.next).toMatchObject({ state: 'ramping', settled: true, level: 1, sustainedLevel: 1 });
    expect(d.transitions[0]!.reason).toContain('wants more than it allows');
    const again = at(d.next, d.next.stepSince! + SETTLED_WINDOW_DWELLS * DWELL + 1, rate * 2);
    expect(again.transitions).toEqual([]);
    const fits = at(again.next, again.next.stepSince! + SETTLED_WINDOW_DWELLS * DWELL + 1, rate * 0.5);
    expect(fits.next.state).toBe('closed');
  });

  it('closes at once when the demand fits, and without demand figures', () => {
    const s = atTop();
    expect(at(s, s.stepSince! + DWELL + 1, rate).next.state).toBe('closed');
    expect(pass(s).next.state).toBe('closed');
  });
});

describe('provider models (the recovery a simulator would see)', () => {
  /** queueing (latency 2.5×) from `capacity`, degraded above 1.2× it, collapsed above 2× */
  function run(capacity: number, durationMs: number) {
    let s = ramping(0);
    let opens = 0;
    let maxOver = 0;
    for (let now = 1000; now <= durationMs; now += 1000) {
      const level = admittedLevel(s) ?? 0;
      if (s.state === 'ramping') maxOver = Math.max(maxOver, level / capacity);
      const sample =
        level <= capacity * 0.8
          ? good
          : level <= capacity
            ? { ...good, latencyP95Ms: 500 }
            : level <= capacity * 1.2
              ? { ...good, latencyP95Ms: 700 }
              : level <= capacity * 2
                ? degraded
                : collapsed;
      const d = tick(s, now, s.state === 'ramping' ? sample : undefined);
      if (d.next.state === 'open' && s.state !== 'open') opens++;
      s = d.next;
    }
    return { s, opens, maxOver };
  }

  it('a provider back at 10 % settles just below 10 % without reopening, never sending 1.2× of it', () => {
    const { s, opens, maxOver } = run(0.1, 10 * 60_000);
    expect(opens).toBe(0);
    expect(s.state).toBe('ramping');
    expect(s.level!).toBeLessThanOrEqual(0.1 * 1.2);
    expect(s.level!).toBeGreaterThanOrEqual(0.1 * LEVEL_DECREASE);
    expect(maxOver).toBeLessThanOrEqual(1.2 * 1.2);
  });

  it('a provider back at 100 % closes', () => {
    const { s, opens } = run(1, 10 * 60_000);
    expect(opens).toBe(0);
    expect(s.state).toBe('closed');
  });
});

describe('operator actions', () => {
  it('force_open holds OPEN past the cooldown until resume_ramp or force_close', () => {
    const s = climbTo(ramping(0), 2);
    const d = applyOperatorAction(s, 'force_open', 'provider maintenance', 70_000, pool, rng());
    expect(d.next).toMatchObject({ state: 'open', operatorHold: true, epoch: s.epoch + 1, step: null });
    expect(d.transitions[0]).toMatchObject({
      actor: 'operator',
      reason: 'force_open: provider maintenance',
      from: 'ramping',
      to: 'open',
    });
    const held = tick(d.next, d.next.cooldownUntil! + 1);
    expect(held.next.state).toBe('open');
    const resumed = applyOperatorAction(d.next, 'resume_ramp', '', 200_000, pool, rng()).next;
    expect(tick(resumed, 200_001).next.state).toBe('probing');
  });

  it('force_close closes from any state and forgets failed recoveries', () => {
    for (const s of [opened(), tick(opened(), 40_000).next, ramping(0)]) {
      const d = applyOperatorAction({ ...s, failedRecoveries: 2 }, 'force_close', 'ok', 1, pool, rng());
      expect(d.next).toMatchObject({ state: 'closed', failedRecoveries: 0, cooldownUntil: null, step: null });
    }
  });

  it('force_close holds against the quorum for one heartbeat TTL (T−1 ms stays closed, T+1 ms opens)', () => {
    const TTL = 15_000;
    const at = 100_000;
    const d = applyOperatorAction(opened(), 'force_close', 'provider fixed', at, pool, rng(), TTL);
    expect(d.next).toMatchObject({ state: 'closed', quorumQuietUntil: at + TTL });
    expect(d.transitions[0]!.figures).toEqual({ action: 'force_close', quorumQuietUntil: at + TTL });
    const early = onQuorum(d.next, reached, at + TTL - 1, pool, rng());
    expect(early.next).toBe(d.next);
    expect(early.transitions).toEqual([]);
    const late = onQuorum(d.next, reached, at + TTL + 1, pool, rng());
    expect(late.next).toMatchObject({ state: 'open', epoch: d.next.epoch + 1 });
    expect(late.transitions[0]).toMatchObject({ actor: 'quorum', from: 'closed', to: 'open' });
  });

  it('force_close without a TTL (quorumQuietMs 0) lets the quorum act at once', () => {
    const d = applyOperatorAction(opened(), 'force_close', '', 500, pool, rng());
    expect(onQuorum(d.next, reached, 500, pool, rng()).next.state).toBe('open');
  });

  it('property: within the quiet TTL after force_close no quorum opens; after it a reached quorum does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (ttl, at, frac) => {
          const d = applyOperatorAction(ramping(0), 'force_close', '', at, pool, rng(), ttl);
          const inside = at + Math.floor(frac * ttl);
          expect(onQuorum(d.next, reached, inside, pool, rng()).transitions).toEqual([]);
          expect(onQuorum(d.next, reached, at + ttl, pool, rng()).next.state).toBe('open');
        },
      ),
      { seed: 7 },
    );
  });

  it('pause_ramp freezes the steps (collapse still acts); resume_ramp starts a fresh window', () => {
    const s = ramping(0);
    const paused = applyOperatorAction(s, 'pause_ramp', 'watching', 5, pool, rng()).next;
    expect(tick(paused, 5 * DWELL, good).next).toBe(paused);
    expect(tick(paused, 1, collapsed).next.state).toBe('open');
    const resumed = applyOperatorAction(paused, 'resume_ramp', '', 5 * DWELL, pool, rng()).next;
    expect(resumed).toMatchObject({ rampPaused: false, stepSince: 5 * DWELL });
    expect(tick(resumed, 6 * DWELL - 1, good).next.step).toBe(0);
    expect(tick(resumed, 6 * DWELL + 1, good).next).toMatchObject({ step: 1, heldLevel: 0.01 });
  });
});

describe('invariants (property)', () => {
  type Ev =
    | { kind: 'quorum'; dt: number; reached: boolean }
    | { kind: 'tick'; dt: number; sample: RampSample | null; demand: number | null }
    | { kind: 'probe'; dt: number; outcome: 'success' | 'overload' | 'rate_limited'; latencyMs: number }
    | { kind: 'operator'; dt: number; action: OperatorAction };
  const dt = fc.integer({ min: 0, max: 40_000 });
  // weighted so random runs climb the ramp, settle and reopen, not just sit in step 0
  const sample = fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.constant(good), weight: 6 },
    { arbitrary: fc.constantFrom(degraded, collapsed, thin), weight: 3 },
    {
      arbitrary: fc
        .record({ attempts: fc.nat(200), s: fc.nat(200), r: fc.nat(50), lat: fc.nat(4000) })
        .map(({ attempts, s, r, lat }) => ({
          attempts,
          successes: Math.min(s, attempts),
          rateLimited: Math.min(r, attempts),
          latencyP95Ms: lat,
          ttftP95Ms: null,
          queueAgeMs: null,
        })),
      weight: 2,
    },
  );
  const ev: fc.Arbitrary<Ev> = fc.oneof(
    { arbitrary: fc.record({ kind: fc.constant('quorum' as const), dt, reached: fc.boolean() }), weight: 2 },
    {
      arbitrary: fc.record({
        kind: fc.constant('tick' as const),
        dt,
        sample,
        demand: fc.option(fc.double({ min: 0, max: 2000, noNaN: true })),
      }),
      weight: 8,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('probe' as const),
        dt,
        outcome: fc.constantFrom(
          'success' as const,
          'success' as const,
          'success' as const,
          'overload' as const,
          'rate_limited' as const,
        ),
        latencyMs: fc.nat(2500),
      }),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('operator' as const),
        dt,
        action: fc.constantFrom(...OPERATOR_ACTIONS),
      }),
      weight: 1,
    },
  );

  function checkState(s: GlobalBreakerState) {
    const r = s.state === 'ramping';
    expect(s.step !== null).toBe(r);
    expect(s.level !== null).toBe(r);
    expect(s.stepSince !== null).toBe(r);
    if (s.step !== null) expect(s.step).toBeGreaterThanOrEqual(0);
    if (s.level !== null) expect(s.level > 0 && s.level <= 1).toBe(true);
    expect(s.cooldownUntil !== null).toBe(s.state === 'open');
    if (s.nextStepUpAfter !== null) expect(s.failedLevel !== null && s.settled).toBe(true);
    if (s.failedLevel !== null) expect(r).toBe(true);
    if (s.sustainedLevel !== null) expect(s.sustainedLevel > 0 && s.sustainedLevel <= 1).toBe(true);
    if (s.settled) expect(r).toBe(true);
    if (s.drainingUntil !== null && s.drainingUntil !== undefined) expect(r).toBe(true);
    if (s.operatorHold) expect(s.state).toBe('open');
    expect(s.failedRecoveries).toBeGreaterThanOrEqual(0);
  }

  it('property: random samples, probe results and actions never produce an invalid state', () => {
    fc.assert(
      fc.property(fc.array(ev, { minLength: 40, maxLength: 200, size: 'max' }), fc.nat(), (events, seed) => {
        const r = seededRng(seed);
        let now = 0;
        let s = initialGlobalState(0);
        for (const e of events) {
          now += e.dt;
          let d: Decision;
          if (e.kind === 'quorum') d = onQuorum(s, { ...reached, reached: e.reached }, now, pool, r);
          else if (e.kind === 'tick') {
            const input = e.sample ? { now, rng: r, pool, sample: e.sample } : { now, rng: r, pool };
            d = onTick(s, e.demand === null ? input : { ...input, demand: { standard: e.demand } });
            // CLOSED from RAMPING only when the demand (if known) fits the last step's rate
            if (s.state === 'ramping' && d.next.state === 'closed' && e.demand !== null)
              expect(e.demand).toBeLessThanOrEqual(pool.capacity.standard!.ratePerSec);
          } else if (e.kind === 'probe')
            d = onProbeResult(s, { outcome: e.outcome, latencyMs: e.latencyMs }, pool, now, r);
          else d = applyOperatorAction(s, e.action, 'test', now, pool, r);
          checkState(d.next);
          // while OPEN or PROBING nothing is admitted beyond the probe budget: no ramp level, no allowance
          if (d.next.state === 'open' || d.next.state === 'probing') {
            expect(admittedLevel(d.next)).toBeNull();
            if (d.next.state === 'open' && d.next.epoch !== s.epoch)
              expect(d.next.cooldownUntil! - now).toBeGreaterThanOrEqual(
                d.next.operatorHold ? 0 : Math.min(1000 / pool.probe.ratePerSec, 0.8 * pool.probe.cooldownMs),
              );
          }
          const at = admittedLevel(d.next);
          if (at !== null)
            expect(Object.keys(stepBudget(pool, { step: d.next.step!, level: at }))).toEqual(['standard']);
          // while draining the ramp admits less than the level it lands on, and lands on exactly it
          if (d.next.state === 'ramping' && d.next.drainTo != null)
            expect(d.next.level!).toBeLessThanOrEqual(d.next.drainTo);
          const landed = s.drainTo != null && d.next.level === s.drainTo;
          // a climb is never above the last level that held times the growth factor
          if (
            s.level !== null &&
            d.next.level !== null &&
            d.next.level > s.level &&
            s.state === 'ramping' &&
            !landed
          ) {
            expect(d.next.level).toBeLessThanOrEqual(d.next.heldLevel! * pool.ramp.growth + 1e-12);
            expect(now).toBeGreaterThanOrEqual(s.stepSince! + DWELL);
          }
          // the learned level falls after a step judged a collapse (a drain's move carries its
          // sample too, and sizes its landing afresh instead)
          const drainEnded = s.drainingUntil != null;
          if (!drainEnded && d.transitions.some((t) => t.figures.gates?.outcome === 'collapse'))
            expect(d.next.sustainedLevel!).toBeLessThan(s.sustainedLevel ?? 1);
          expect(d.next.epoch).toBeGreaterThanOrEqual(s.epoch);
          if (d.next.state === 'open' && s.state !== 'open') expect(d.next.epoch).toBe(s.epoch + 1);
          if (d.next.state !== s.state || d.next.step !== s.step || d.next.level !== s.level)
            expect(d.transitions.length).toBeGreaterThan(0);
          // every change of level is one new step
          if (s.step !== null && d.next.step !== null && d.next.level !== s.level)
            expect(d.next.step).toBe(s.step + 1);
          let prev = s;
          for (const t of d.transitions) {
            expect(t.from).toBe(prev.state);
            expect(t.at).toBe(now);
            prev = d.next;
          }
          if (d.transitions.length > 0) expect(d.transitions.at(-1)!.to).toBe(d.next.state);
          s = d.next;
        }
      }),
    );
  });
});
