import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../pool/PoolConfig.js';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import { seededRng } from '../random/Rng.js';
import type { RampSample } from '../ramp/Gates.js';
import {
  applyOperatorAction,
  ceilingRetryWaitMs,
  initialGlobalState,
  OPERATOR_ACTIONS,
  onProbeResult,
  onQuorum,
  onTick,
  type Decision,
  type GlobalBreakerState,
  type OperatorAction,
} from './GlobalBreaker.js';

const pool: PoolConfig = DEFAULT_POOL('llm', 'llm'); // dwell 10 s, minSample 10, 6 steps, 2 probes, 30 s cooldown
const DWELL = pool.ramp.dwellMs;
const rng = () => seededRng(42);
const reached = { reached: true, open: 6, live: 10, threshold: 5, formedBy: ['a', 'b'] };

const good: RampSample = {
  attempts: 50,
  successes: 50,
  rateLimited: 0,
  latencyP95Ms: 300,
  ttftP95Ms: 100,
  queueAgeMs: 0,
};
const degraded: RampSample = { ...good, latencyP95Ms: 5000 };
const collapsed: RampSample = { ...good, successes: 5 };
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
  expect(s).toMatchObject({ state: 'ramping', step: 0, stepSince: now });
  return s;
}

function tick(s: GlobalBreakerState, now: number, sample?: RampSample): Decision {
  return onTick(s, sample ? { now, rng: rng(), pool, sample } : { now, rng: rng(), pool });
}

/** After a step back: the tick at the end of the drain, which restarts the landing step's window. */
function drained(s: GlobalBreakerState): GlobalBreakerState {
  if (s.drainingUntil === null || s.drainingUntil === undefined) return s;
  const d = tick(s, s.drainingUntil, collapsed);
  expect(d.transitions).toEqual([]);
  expect(d.next).toMatchObject({ step: s.step, stepSince: s.drainingUntil, drainingUntil: null });
  return d.next;
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
    expect(cooldown).toBeGreaterThanOrEqual(24_000);
    expect(cooldown).toBeLessThanOrEqual(30_000);
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

  it('ramps from step 0 once probesToPass probes passed the gates', () => {
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
    expect(two.next).toMatchObject({ state: 'ramping', step: 0, stepSince: 42_000, settled: false });
    expect(two.transitions[0]).toMatchObject({ from: 'probing', to: 'ramping', step: 0, actor: 'probe' });
  });

  it('reopens with a longer cooldown and a new epoch when a probe fails', () => {
    const d = onProbeResult(probing(), { outcome: 'overload', latencyMs: 30_000 }, pool, 41_000, rng());
    expect(d.next).toMatchObject({ state: 'open', epoch: 2, failedRecoveries: 1 });
    const cooldown = d.next.cooldownUntil! - 41_000;
    expect(cooldown).toBeGreaterThanOrEqual(48_000);
    expect(cooldown).toBeLessThanOrEqual(60_000);
    const slowSuccess = onProbeResult(
      probing(),
      { outcome: 'success', latencyMs: 2001 },
      pool,
      41_000,
      rng(),
    );
    expect(slowSuccess.next.state).toBe('open');
  });

  it('ignores neutral outcomes, stale epochs, and results outside PROBING', () => {
    const p = probing();
    expect(onProbeResult(p, { outcome: 'rate_limited', latencyMs: 5 }, pool, 1, rng())).toEqual({
      next: p,
      transitions: [],
    });
    expect(onProbeResult(p, { outcome: 'overload', latencyMs: 5, epoch: 0 }, pool, 1, rng()).next).toBe(p);
    const o = opened();
    expect(onProbeResult(o, { outcome: 'success', latencyMs: 5 }, pool, 1, rng()).next).toBe(o);
  });
});

describe('RAMPING', () => {
  it('steps up on pass only after a full dwell (T−1 ms / T+1 ms), resetting the window', () => {
    const s = ramping(100_000);
    expect(tick(s, 100_000 + DWELL - 1, good).next).toBe(s);
    const d = tick(s, 100_000 + DWELL + 1, good);
    expect(d.next).toMatchObject({
      state: 'ramping',
      step: 1,
      stepSince: 100_000 + DWELL + 1,
      lastPassedStep: 0,
    });
    expect(d.transitions[0]).toMatchObject({
      from: 'ramping',
      to: 'ramping',
      fromStep: 0,
      step: 1,
      actor: 'ramp',
    });
    expect(d.transitions[0]!.figures.gates).toMatchObject({ outcome: 'pass', attempts: 50, successRate: 1 });
  });

  it.each([
    ['pass', good, { step: 1, heldAtStep: null }],
    ['degrade', degraded, { step: 0, heldAtStep: 0 }],
    ['insufficient', thin, { step: 0, heldAtStep: null, stepSince: 0 }],
  ] as const)('%s: nothing at dwell T−1 ms, the outcome at T+1 ms', (_name, sample, expected) => {
    const s = ramping(0);
    expect(tick(s, DWELL - 1, sample)).toEqual({ next: s, transitions: [] });
    expect(tick(s, DWELL + 1, sample).next).toMatchObject({ state: 'ramping', ...expected });
  });

  it('collapse: acts at T−1 ms of the dwell already', () => {
    expect(tick(ramping(0), DWELL - 1, collapsed).next.state).toBe('open');
  });

  it('waits while the sample is below the minimum, however long the dwell', () => {
    const s = ramping(0);
    expect(tick(s, 10 * DWELL, thin).next).toBe(s);
    expect(tick(s, 10 * DWELL).next).toBe(s);
  });

  it('holds one dwell on degrade, then steps back and remembers the ceiling', () => {
    const s = climbTo(ramping(0), 3);
    const t0 = s.stepSince!;
    const hold = tick(s, t0 + DWELL + 1, degraded);
    expect(hold.next).toMatchObject({ step: 3, heldAtStep: 3, stepSince: t0 + DWELL + 1 });
    expect(hold.transitions[0]!.reason).toMatch(/holding one dwell/);
    const h = hold.next;
    expect(tick(h, h.stepSince! + DWELL - 1, degraded).next).toBe(h);
    const back = tick(h, h.stepSince! + DWELL + 1, degraded);
    const at = h.stepSince! + DWELL + 1;
    expect(back.next).toMatchObject({
      step: 2,
      heldAtStep: null,
      ceiling: 3,
      ceilingRetries: 1,
      drainingUntil: at + DWELL,
      nextStepUpAfter: at + DWELL + 2 * DWELL,
      settled: false,
    });
    expect(back.transitions[0]!.figures.gates!.failed).toEqual(['latencyP95']);
  });

  it('a degrade that clears during the hold lets the ramp continue', () => {
    const s = climbTo(ramping(0), 2);
    const h = tick(s, s.stepSince! + DWELL + 1, degraded).next;
    expect(tick(h, h.stepSince! + DWELL + 1, good).next).toMatchObject({
      step: 3,
      heldAtStep: null,
      ceiling: null,
    });
  });

  it('settles below the ceiling and retries it only after the longer dwell (T−1 ms / T+1 ms)', () => {
    let s = climbTo(ramping(0), 3);
    s = tick(s, s.stepSince! + DWELL + 1, degraded).next;
    s = tick(s, s.stepSince! + DWELL + 1, degraded).next; // step 2, ceiling 3, retry after drain + 2 dwells
    const retryAt = s.nextStepUpAfter!;
    expect(retryAt).toBe(s.stepSince! + 3 * DWELL);
    s = drained(s);
    const settle = tick(s, s.stepSince! + DWELL + 1, good);
    expect(settle.next).toMatchObject({ step: 2, settled: true, ceiling: 3 });
    expect(settle.transitions[0]!.reason).toMatch(/^settled at step 2/);
    s = settle.next;
    const quiet = tick(s, retryAt - 1, good);
    expect(quiet.next).toMatchObject({ step: 2, settled: true });
    expect(quiet.transitions).toEqual([]);
    s = quiet.next;
    const retry = tick(s, Math.max(retryAt + 1, s.stepSince! + DWELL + 1), good);
    expect(retry.next).toMatchObject({ step: 3, settled: false, ceiling: 3 });
    expect(retry.transitions[0]!.reason).toMatch(/retrying step 3/);
    // the retry degrades: straight back (no hold), and the next retry waits twice as long
    const at = retry.next.stepSince! + DWELL + 1;
    const again = tick(retry.next, at, degraded);
    expect(again.next).toMatchObject({
      step: 2,
      ceiling: 3,
      ceilingRetries: 2,
      drainingUntil: at + DWELL,
      nextStepUpAfter: at + DWELL + 4 * DWELL,
    });
  });

  it('caps the ceiling retry wait', () => {
    expect(ceilingRetryWaitMs(DWELL, 1)).toBe(2 * DWELL);
    expect(ceilingRetryWaitMs(DWELL, 5)).toBe(32 * DWELL);
    expect(ceilingRetryWaitMs(DWELL, 50)).toBe(32 * DWELL);
  });

  it('lifts the ceiling once the retried step holds', () => {
    let s = climbTo(ramping(0), 3);
    s = tick(s, s.stepSince! + DWELL + 1, degraded).next;
    s = tick(s, s.stepSince! + DWELL + 1, degraded).next;
    s = drained(s);
    s = tick(s, s.nextStepUpAfter! + 1, good).next;
    expect(s.step).toBe(3);
    s = tick(s, s.stepSince! + DWELL + 1, good).next;
    expect(s).toMatchObject({ step: 4, ceiling: null, ceilingRetries: 0, nextStepUpAfter: null });
  });

  it('collapse lands at once on the last step that held; a second collapse reopens', () => {
    const s = climbTo(ramping(0), 3);
    const d = tick(s, s.stepSince! + 1, collapsed);
    expect(d.next).toMatchObject({ state: 'ramping', step: 2, ceiling: 3, lastPassedStep: null });
    expect(d.transitions[0]!.figures.gates!.outcome).toBe('collapse');
    const again = tick(drained(d.next), d.next.drainingUntil! + 1, collapsed);
    expect(again.next).toMatchObject({ state: 'open', failedRecoveries: 1, epoch: s.epoch + 1, step: null });
  });

  it('after a step back the landing step drains one dwell: no judgement at T−1 ms, a fresh window at T', () => {
    const s = climbTo(ramping(0), 3);
    const back = tick(s, s.stepSince! + 1, collapsed).next;
    expect(back).toMatchObject({
      step: 2,
      stepSince: s.stepSince! + 1,
      drainingUntil: s.stepSince! + 1 + DWELL,
    });
    // the aftermath of step 3 (even a collapse) is not blamed on step 2
    expect(tick(back, back.drainingUntil! - 1, collapsed)).toEqual({ next: back, transitions: [] });
    const fresh = tick(back, back.drainingUntil!, collapsed);
    expect(fresh).toEqual({
      next: { ...back, stepSince: back.drainingUntil, drainingUntil: null },
      transitions: [],
    });
    // from then on a collapse acts at once again
    expect(tick(fresh.next, fresh.next.stepSince! + 1, collapsed).next.state).toBe('open');
  });

  it('collapse at step 0 reopens at once with a longer cooldown', () => {
    const s = ramping(0);
    const d = tick(s, 1, collapsed);
    expect(d.next).toMatchObject({ state: 'open', failedRecoveries: 1, ceiling: null });
    expect(d.next.cooldownUntil! - 1).toBeGreaterThanOrEqual(48_000);
    expect(d.transitions[0]).toMatchObject({ from: 'ramping', to: 'open', fromStep: 0, step: null });
  });

  it('degraded twice at step 0 reopens', () => {
    let s = ramping(0);
    s = tick(s, DWELL + 1, degraded).next;
    expect(s.heldAtStep).toBe(0);
    const d = tick(s, s.stepSince! + DWELL + 1, degraded);
    expect(d.next).toMatchObject({ state: 'open', failedRecoveries: 1 });
  });

  it('closes once the last step held a dwell, and forgets failed recoveries', () => {
    let s = climbTo(ramping(0), 5);
    s = { ...s, failedRecoveries: 3 };
    expect(tick(s, s.stepSince! + DWELL - 1, good).next).toBe(s);
    const d = tick(s, s.stepSince! + DWELL + 1, good);
    expect(d.next).toMatchObject({ state: 'closed', failedRecoveries: 0, step: null, cooldownUntil: null });
    expect(d.transitions[0]).toMatchObject({ from: 'ramping', to: 'closed', fromStep: 5 });
  });
});

describe('the last step closes only when it is not binding', () => {
  const budget = pool.capacity.standard!.ratePerSec; // the last step's rate (fraction 1)
  const at = (s: GlobalBreakerState, now: number, demand: Record<string, number>) =>
    onTick(s, { now, rng: rng(), pool, sample: good, demand });

  it('stays at the last step, settled and recorded once, while the fleet wants more than it allows', () => {
    const s = climbTo(ramping(0), 5);
    const t1 = s.stepSince! + DWELL + 1;
    const held = at(s, t1, { standard: budget * 3 });
    expect(held.next).toMatchObject({ state: 'ramping', step: 5, settled: true, stepSince: t1 });
    expect(held.transitions).toHaveLength(1);
    expect(held.transitions[0]!.reason).toMatch(/wants more than it allows .*settled, still throttled/);
    expect(held.transitions[0]!.figures.load).toEqual({ standard: { demand: budget * 3, budget } });
    // judged again each dwell, silently while still binding: nothing at T−1 ms, a fresh window at T+1 ms
    expect(at(held.next, t1 + DWELL - 1, { standard: budget * 2 }).next).toBe(held.next);
    const again = at(held.next, t1 + DWELL + 1, { standard: budget * 2 });
    expect(again.transitions).toEqual([]);
    expect(again.next).toMatchObject({ state: 'ramping', step: 5, stepSince: t1 + DWELL + 1 });
    // the backlog drained: demand at exactly the step's rate fits
    const t3 = t1 + 2 * DWELL + 2;
    const closed = at(again.next, t3, { standard: budget });
    expect(closed.next.state).toBe('closed');
    expect(closed.transitions[0]!.reason).toMatch(/demand fits/);
    expect(closed.transitions[0]!.figures.load).toEqual({ standard: { demand: budget, budget } });
  });

  it('closes at once when the demand fits from the start, and without demand figures as before', () => {
    const s = climbTo(ramping(0), 5);
    expect(at(s, s.stepSince! + DWELL + 1, { standard: 1 }).next.state).toBe('closed');
    expect(tick(s, s.stepSince! + DWELL + 1, good).next.state).toBe('closed');
  });

  it('a binding last step that degrades still holds, then steps back', () => {
    const s = at(climbTo(ramping(0), 5), DWELL * 6 + 10, { standard: budget * 3 }).next;
    const d1 = onTick(s, { now: s.stepSince! + DWELL + 1, rng: rng(), pool, sample: degraded, demand: {} });
    expect(d1.next).toMatchObject({ step: 5, heldAtStep: 5, settled: false });
    const d2 = onTick(d1.next, { now: d1.next.stepSince! + DWELL + 1, rng: rng(), pool, sample: degraded });
    expect(d2.next).toMatchObject({ step: 4, ceiling: 5 });
  });
});

describe('provider models (the recovery a simulator would see)', () => {
  /** gates hold while admitted load ≤ capacity; far above it the provider collapses */
  function run(capacity: number, durationMs: number) {
    let s = ramping(0);
    const retryTimes: number[] = [];
    let opens = 0;
    for (let now = 1000; now <= durationMs; now += 1000) {
      const load = s.step === null ? 0 : pool.ramp.steps[s.step]!;
      const sample = load <= capacity ? good : load <= capacity * 3 ? degraded : collapsed;
      const d = tick(s, now, s.state === 'ramping' ? sample : undefined);
      if (d.next.state === 'open' && s.state !== 'open') opens++;
      if (d.transitions.some((t) => t.reason.startsWith('gates held') && t.reason.includes('retrying'))) {
        retryTimes.push(now);
      }
      s = d.next;
    }
    return { s, retryTimes, opens };
  }

  it('a provider back at 10 % settles at the 10 % step without reopening', () => {
    const { s, retryTimes, opens } = run(0.1, 60 * 60_000);
    expect(opens).toBe(0);
    expect(s).toMatchObject({ state: 'ramping', step: 2, settled: true });
    // retries of the 25 % step grow apart (no oscillation) up to the cap of 32 dwells
    const gaps = retryTimes.slice(1).map((t, i) => t - retryTimes[i]!);
    expect(gaps.length).toBeGreaterThan(3);
    gaps.slice(1).forEach((g, i) => expect(g).toBeGreaterThanOrEqual(gaps[i]!));
    expect(gaps.at(-1)!).toBeGreaterThanOrEqual(32 * DWELL);
  });

  it('a provider back at 100 % closes after the last step', () => {
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
    expect(tick(resumed, 6 * DWELL + 1, good).next.step).toBe(1);
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

  function checkState(s: GlobalBreakerState, steps: number) {
    const r = s.state === 'ramping';
    expect(s.step !== null).toBe(r);
    expect(s.stepSince !== null).toBe(r);
    if (s.step !== null) expect(s.step >= 0 && s.step < steps).toBe(true);
    expect(s.cooldownUntil !== null).toBe(s.state === 'open');
    expect(s.ceiling !== null).toBe(s.nextStepUpAfter !== null);
    if (s.ceiling !== null) expect(r && s.step! <= s.ceiling && s.ceiling < steps).toBe(true);
    if (s.heldAtStep !== null) expect(s.heldAtStep).toBe(s.step);
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
          checkState(d.next, pool.ramp.steps.length);
          expect(d.next.epoch).toBeGreaterThanOrEqual(s.epoch);
          if (d.next.state === 'open' && s.state !== 'open') expect(d.next.epoch).toBe(s.epoch + 1);
          if (d.next.state !== s.state || d.next.step !== s.step)
            expect(d.transitions.length).toBeGreaterThan(0);
          // the ramp climbs one step at a time, and only after a full dwell of its window
          if (s.step !== null && d.next.step !== null && d.next.step > s.step) {
            expect(d.next.step).toBe(s.step + 1);
            expect(now).toBeGreaterThanOrEqual(s.stepSince! + DWELL);
          }
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
