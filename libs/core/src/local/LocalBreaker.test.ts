import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../backoff/Backoff.js';
import { ALL_OUTCOMES } from '../outcome/allOutcomes.test-support.js';
import { seededRng } from '../random/Rng.js';
import { FakeClock } from '../time/Clock.js';
import type { GlobalState, Outcome } from '../wire.js';
import { LocalBreaker, type LocalBreakerInit } from './LocalBreaker.js';

const TICK = 1_000;
const NO_JITTER = { baseMs: 5_000, maxMs: 60_000, multiplier: 2, jitter: 0 };
const CLOSED = { state: 'closed' as GlobalState };

function setup(init: LocalBreakerInit = {}, seed = 1) {
  const clock = new FakeClock(1_000_000);
  const breaker = new LocalBreaker({ cooldown: NO_JITTER, ...init }, clock, seededRng(seed));
  /** one tick of `n` calls with the given outcome, then advance one tick period */
  const tickWith = (n: number, outcome: Outcome, group: { state: GlobalState } | null = CLOSED) => {
    for (let i = 0; i < n; i++) breaker.record(outcome, 100);
    const evidence = breaker.tick(group);
    clock.advance(TICK);
    return evidence;
  };
  return { clock, breaker, tickWith };
}

/** Opens the breaker (3 ticks of 5 overloads, default options) and returns the time it opened. */
function tripped(init: LocalBreakerInit = {}, seed = 1) {
  const s = setup(init, seed);
  s.tickWith(5, 'overload');
  s.tickWith(5, 'overload');
  for (let i = 0; i < 5; i++) s.breaker.record('overload', 100);
  const openedAt = s.clock.now();
  s.breaker.tick(CLOSED);
  return { ...s, openedAt };
}

describe('LocalBreaker, consecutive mode', () => {
  it('opens on the Nth consecutive bad tick, not the one before', () => {
    const { breaker, tickWith } = setup();
    tickWith(5, 'overload');
    tickWith(5, 'network');
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
    tickWith(5, 'slow');
    expect(breaker.state).toBe('local_open');
    expect(breaker.reportedState()).toBe('open');
    expect(breaker.allow()).toBe(false);
  });

  it('pools sparse ticks until they reach minAttemptsPerTick; they neither extend nor break the streak alone', () => {
    const { breaker, tickWith } = setup({ minAttemptsPerTick: 3 });
    tickWith(3, 'overload');
    tickWith(2, 'overload'); // too few attempts: pooled, proves nothing yet
    tickWith(0, 'overload');
    tickWith(3, 'overload'); // a full tick: judged alone, the pool is dropped
    expect(breaker.state).toBe('closed');
    tickWith(2, 'overload');
    tickWith(1, 'overload'); // 2 + 1 pooled = one bad tick: the third
    expect(breaker.state).toBe('local_open');
  });

  it('breaks the streak on a success in a sparse tick', () => {
    const { breaker, tickWith } = setup({ minAttemptsPerTick: 3 });
    tickWith(3, 'overload');
    tickWith(3, 'overload');
    breaker.record('overload', 100);
    tickWith(1, 'success'); // pooled 1 failure + 1 success: not all systemic
    tickWith(3, 'overload');
    expect(breaker.state).toBe('closed');
  });

  it('defaults: an instance calling every 2 s opens on its third failure in a row (~5 s), not on the second', () => {
    const { breaker, tickWith } = setup();
    const states: string[] = [];
    for (let t = 0; t < 5; t++) {
      tickWith(t % 2 === 0 ? 1 : 0, 'overload'); // ticks 0, 2, 4 carry one failed call
      states.push(breaker.state);
    }
    expect(states).toEqual(['closed', 'closed', 'closed', 'closed', 'local_open']);
  });

  it('defaults: an instance calling every 5 s still opens within 11 ticks of a total outage', () => {
    const { breaker, tickWith } = setup();
    let openedAt = -1;
    for (let t = 0; t < 20 && openedAt < 0; t++) {
      tickWith(t % 5 === 0 ? 1 : 0, 'network');
      if (breaker.state === 'local_open') openedAt = t;
    }
    expect(openedAt).toBe(10);
  });

  it('forgets a streak after more than windowTicks empty ticks: at windowTicks it holds, at +1 it lapses', () => {
    const run = (empty: number) => {
      const { breaker, tickWith } = setup({ windowTicks: 10 });
      tickWith(1, 'overload');
      tickWith(1, 'overload');
      for (let i = 0; i < empty; i++) tickWith(0, 'overload');
      tickWith(1, 'overload');
      return breaker.state;
    };
    expect(run(10)).toBe('local_open');
    expect(run(11)).toBe('closed');
  });

  it('does not trip while the group ramps, and starts a fresh streak when it closes', () => {
    const { breaker, tickWith } = setup();
    const RAMPING = { state: 'ramping' as GlobalState };
    for (let t = 0; t < 5; t++) tickWith(5, 'overload', RAMPING);
    expect(breaker.state).toBe('closed');
    tickWith(5, 'overload', CLOSED);
    tickWith(5, 'overload', CLOSED);
    expect(breaker.state).toBe('closed');
    tickWith(5, 'overload', CLOSED);
    expect(breaker.state).toBe('local_open');
  });

  it('defaults: one failure among successes never trips, tick after tick', () => {
    const { breaker, clock } = setup();
    for (let t = 0; t < 50; t++) {
      breaker.record('overload', 100);
      breaker.record('success', 100);
      breaker.tick(CLOSED);
      clock.advance(TICK);
    }
    expect(breaker.state).toBe('closed');
  });

  it('property (defaults): never opens unless 3 systemic failures came with no success or 429 between them', () => {
    const outcome = fc.constantFrom<Outcome>(
      'success',
      'overload',
      'network',
      'slow',
      'rate_limited',
      'auth',
      'client_error',
      'cancelled',
    );
    fc.assert(
      fc.property(fc.array(fc.array(outcome, { maxLength: 6 }), { maxLength: 40 }), (ticks) => {
        const { breaker, clock } = setup();
        let run = 0;
        let longest = 0;
        for (const outcomes of ticks) {
          for (const o of outcomes) {
            breaker.record(o, 10);
            if (o === 'overload' || o === 'network' || o === 'slow') longest = Math.max(longest, ++run);
            else if (o === 'success' || o === 'rate_limited') run = 0;
          }
          breaker.tick(CLOSED);
          clock.advance(TICK);
          if (breaker.state !== 'closed') {
            expect(longest).toBeGreaterThanOrEqual(3);
            return;
          }
        }
      }),
    );
  });

  it('with systemicFraction 0.8 a tick of 4 systemic in 5 is bad and 3 in 5 is not', () => {
    const mixed = (systemic: number) => {
      const { breaker, clock } = setup({ systemicFraction: 0.8 });
      for (let t = 0; t < 3; t++) {
        for (let i = 0; i < 5; i++) breaker.record(i < systemic ? 'overload' : 'success', 10);
        breaker.tick(CLOSED);
        clock.advance(TICK);
      }
      return breaker.state;
    };
    expect(mixed(4)).toBe('local_open');
    expect(mixed(3)).toBe('closed');
  });

  it('leaves client_error and auth out of the systemic fraction instead of diluting it', () => {
    const { breaker, clock } = setup();
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 5; i++) breaker.record('overload', 10);
      breaker.record('client_error', 10);
      breaker.record('auth', 10);
      breaker.tick(CLOSED);
      clock.advance(TICK);
    }
    expect(breaker.state).toBe('local_open');
  });

  it('returns the closed tick evidence with counts per class and the p95 latency', () => {
    const { breaker } = setup();
    for (let i = 1; i <= 20; i++) breaker.record(i <= 18 ? 'success' : 'overload', i * 10, i);
    breaker.record('cancelled', 99_999);
    breaker.record('rate_limited', 5);
    const evidence = breaker.tick(CLOSED);
    expect(evidence).toEqual({
      attempts: 21,
      successes: 18,
      byClass: { overload: 2, network: 0, rate_limited: 1, auth: 0, client_error: 0, slow: 0 },
      latencyP95Ms: 190,
      ttftP95Ms: 19,
      queueAgeMs: null,
    });
    expect(breaker.tick(CLOSED).attempts).toBe(0);
  });
});

describe('LocalBreaker latency sampling', () => {
  it('counts untimed calls (NaN latency) as attempts without inventing a latency', () => {
    const { breaker } = setup();
    for (let i = 0; i < 10; i++) breaker.record('success', Number.NaN);
    expect(breaker.tick(CLOSED)).toMatchObject({ attempts: 10, successes: 10, latencyP95Ms: null });
  });

  it('keeps every latency while the reservoir has room, then a sample whose p95 comes from measured calls only', () => {
    const { breaker } = setup({ latencySamples: 16 });
    let timed = 0;
    for (let i = 0; i < 1_000; i++) {
      const slot = breaker.latencySlot();
      if (i < 16) expect(slot).toBe(i);
      if (slot >= 0) timed += 1;
      // calls the sampler skipped are not timed at all; timed ones took 100..199 ms
      breaker.record('success', slot >= 0 ? 100 + (i % 100) : Number.NaN, undefined, slot);
    }
    expect(timed).toBeGreaterThan(16);
    expect(timed).toBeLessThan(200); // ≈ 16·(1 + ln(1000/16)) ≈ 82 expected
    const evidence = breaker.tick(CLOSED);
    expect(evidence.attempts).toBe(1_000);
    expect(evidence.latencyP95Ms).toBeGreaterThanOrEqual(100);
    expect(evidence.latencyP95Ms).toBeLessThanOrEqual(199);
    // the next tick starts empty: no stale samples
    breaker.record('success', Number.NaN);
    expect(breaker.tick(CLOSED).latencyP95Ms).toBeNull();
  });
});

describe('LocalBreaker, window mode', () => {
  const WINDOW = {
    mode: 'window' as const,
    windowTicks: 4,
    failureRateThreshold: 0.5,
    minWindowAttempts: 20,
  };

  it('opens when the failure rate over the window reaches the threshold with enough attempts', () => {
    const { breaker, tickWith } = setup(WINDOW);
    tickWith(10, 'success');
    tickWith(9, 'overload');
    expect(breaker.state).toBe('closed'); // 9/19 and below minWindowAttempts
    tickWith(1, 'overload');
    expect(breaker.state).toBe('local_open'); // 10/20 = 0.5
  });

  it('forgets ticks older than the window', () => {
    const { breaker, tickWith } = setup(WINDOW);
    tickWith(30, 'success');
    tickWith(10, 'overload');
    tickWith(10, 'overload');
    tickWith(0, 'overload');
    expect(breaker.state).toBe('closed'); // 20/50
    tickWith(0, 'overload'); // the 30 successes fall out: 20/20
    expect(breaker.state).toBe('local_open');
  });
});

describe('LocalBreaker, self-probe while the group is closed', () => {
  it('admits no call until the cooldown ends: not at T-1 ms, exactly one trial at T', () => {
    const { breaker, clock, openedAt } = tripped();
    expect(breaker.selfProbeAt).toBe(openedAt + 5_000);
    clock.set(openedAt + 4_999);
    expect(breaker.allow()).toBe(false);
    expect(breaker.state).toBe('local_open');
    clock.set(openedAt + 5_000);
    expect(breaker.allow()).toBe(true);
    expect(breaker.state).toBe('self_probe');
    expect(breaker.reportedState()).toBe('half_open');
    expect(breaker.allow()).toBe(false);
    clock.advance(1);
    expect(breaker.allow()).toBe(false);
  });

  it('moves to self_probe on a tick at T+1 ms but not at T-1 ms', () => {
    const { breaker, clock, openedAt } = tripped();
    clock.set(openedAt + 4_999);
    breaker.tick(CLOSED);
    expect(breaker.state).toBe('local_open');
    clock.set(openedAt + 5_001);
    breaker.tick(CLOSED);
    expect(breaker.state).toBe('self_probe');
  });

  it('closes after a successful trial and opens again at once on fresh evidence only', () => {
    const { breaker, clock, openedAt, tickWith } = tripped();
    clock.set(openedAt + 5_000);
    expect(breaker.allow()).toBe(true);
    breaker.record('success', 50);
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
    tickWith(5, 'overload');
    tickWith(5, 'overload');
    expect(breaker.state).toBe('closed');
  });

  it('backs off exponentially after failed trials: 5 s, then 10 s, then 20 s (edges at T-1 / T)', () => {
    const { breaker, clock, openedAt } = tripped();
    let at = openedAt;
    for (const delay of [5_000, 10_000, 20_000]) {
      clock.set(at + delay - 1);
      expect(breaker.allow()).toBe(false);
      clock.set(at + delay);
      expect(breaker.allow()).toBe(true);
      breaker.record('overload', 50);
      expect(breaker.state).toBe('local_open');
      at = clock.now();
    }
    expect(breaker.selfProbeAt).toBe(at + 40_000);
  });

  it('draws the cooldown from the injected rng (jittered, reproducible from the seed)', () => {
    const cooldown = { baseMs: 5_000, maxMs: 60_000, multiplier: 2, jitter: 0.5 };
    const { breaker, clock, openedAt } = tripped({ cooldown }, 77);
    const expected = backoffDelayMs(0, cooldown, seededRng(77));
    expect(expected).toBeGreaterThanOrEqual(2_500);
    expect(expected).toBeLessThanOrEqual(5_000);
    const edge = openedAt + Math.ceil(expected);
    clock.set(edge - 1);
    expect(breaker.allow()).toBe(false);
    clock.set(edge + 1);
    expect(breaker.allow()).toBe(true);
  });

  it('treats an unreported trial as failed after trialTimeoutMs: at T-1 ms still waiting, at T reopened', () => {
    const { breaker, clock, openedAt } = tripped({ trialTimeoutMs: 30_000 });
    clock.set(openedAt + 5_000);
    expect(breaker.allow()).toBe(true);
    clock.advance(29_999);
    breaker.tick(CLOSED);
    expect(breaker.state).toBe('self_probe');
    clock.advance(1);
    breaker.tick(CLOSED);
    expect(breaker.state).toBe('local_open');
    expect(breaker.selfProbeAt).toBe(clock.now() + 10_000);
  });

  it('hands the trial back when the trial call was cancelled or was the caller’s own fault', () => {
    const { breaker, clock, openedAt } = tripped();
    clock.set(openedAt + 5_000);
    expect(breaker.allow()).toBe(true);
    breaker.record('cancelled', 1);
    expect(breaker.allow()).toBe(true);
    breaker.record('client_error', 1);
    expect(breaker.state).toBe('self_probe');
    expect(breaker.allow()).toBe(true);
    breaker.record('rate_limited', 1);
    expect(breaker.state).toBe('local_open');
    expect(breaker.selfProbeAt).toBe(clock.now() + 5_000); // not counted as a failed recovery
  });
});

describe('LocalBreaker, paused while the group is open or probing', () => {
  for (const groupState of ['open', 'probing'] as const) {
    it(`is paused and never self-probes while the group is ${groupState}`, () => {
      const { breaker, clock, openedAt } = tripped();
      breaker.tick({ state: groupState });
      expect(breaker.state).toBe('paused');
      clock.set(openedAt + 600_000);
      expect(breaker.allow()).toBe(false);
      breaker.tick(null); // controller unreachable: the last known group state holds
      expect(breaker.state).toBe('paused');
      expect(breaker.allow()).toBe(false);
    });
  }

  it('pauses a closed instance too, and closes with a clean slate when the group ramps', () => {
    const { breaker, tickWith } = setup();
    tickWith(5, 'overload');
    tickWith(5, 'overload', { state: 'open' });
    expect(breaker.state).toBe('paused');
    tickWith(0, 'success', { state: 'ramping' });
    expect(breaker.state).toBe('closed');
    tickWith(5, 'overload', { state: 'ramping' });
    tickWith(5, 'overload', { state: 'ramping' });
    expect(breaker.state).toBe('closed'); // the streak before the pause was cleared
  });
});

describe('LocalBreaker.observeGroup', () => {
  it('pauses at once when a plan says the group is open, keeping the open tick evidence', () => {
    const { breaker } = setup();
    breaker.record('overload', 10);
    breaker.observeGroup({ state: 'open' });
    expect(breaker.state).toBe('paused');
    expect(breaker.allow()).toBe(false);
    expect(breaker.tick(null).attempts).toBe(1);
    breaker.observeGroup({ state: 'closed' });
    expect(breaker.state).toBe('closed');
  });
});

describe('LocalBreaker, serialisation', () => {
  it('survives toJSON → initialState with the remaining cooldown, on another clock', () => {
    const { breaker, clock, openedAt } = tripped();
    clock.set(openedAt + 2_000);
    const snapshot = JSON.parse(JSON.stringify(breaker.toJSON()));
    expect(snapshot).toEqual({
      state: 'local_open',
      reopenCount: 0,
      streak: 0,
      nextProbeInMs: 3_000,
      groupState: 'closed',
    });
    const other = new FakeClock(42);
    const restored = new LocalBreaker({ cooldown: NO_JITTER, initialState: snapshot }, other, seededRng(1));
    expect(restored.state).toBe('local_open');
    other.set(42 + 2_999);
    expect(restored.allow()).toBe(false);
    other.set(42 + 3_000);
    expect(restored.allow()).toBe(true);
  });
});

describe('LocalBreaker, properties', () => {
  const harmless = fc.constantFrom<Outcome>('success', 'client_error', 'auth', 'cancelled', 'rate_limited');
  const anyOutcome = fc.constantFrom<Outcome>(...ALL_OUTCOMES);

  it('never opens on client_error, auth, cancelled, rate_limited or success, in either mode', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'consecutive' | 'window'>('consecutive', 'window'),
        fc.array(fc.array(harmless, { maxLength: 50 }), { maxLength: 30 }),
        (mode, ticks) => {
          const clock = new FakeClock();
          const breaker = new LocalBreaker(
            { mode, minWindowAttempts: 1, minAttemptsPerTick: 1 },
            clock,
            seededRng(3),
          );
          for (const outcomes of ticks) {
            for (const o of outcomes) breaker.record(o, 10);
            breaker.tick(CLOSED);
            clock.advance(TICK);
            expect(breaker.state).toBe('closed');
          }
        },
      ),
    );
  });

  type Op =
    | { kind: 'record'; outcome: Outcome }
    | { kind: 'allow' }
    | { kind: 'advance'; ms: number }
    | { kind: 'tick'; group: GlobalState | null };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('record' as const), outcome: anyOutcome }),
    fc.constant({ kind: 'allow' as const }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
    fc.record({
      kind: fc.constant('tick' as const),
      group: fc.constantFrom<GlobalState | null>(
        'closed',
        'closed',
        'closed',
        'open',
        'probing',
        'ramping',
        null,
      ),
    }),
  );

  it('when not closed, admits at most one call (the self-probe) between two recorded outcomes, and none while paused', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 300 }), fc.integer(), (ops, seed) => {
        const clock = new FakeClock();
        const breaker = new LocalBreaker({ minAttemptsPerTick: 1 }, clock, seededRng(seed));
        let admittedWhileOpen = 0;
        for (const op of ops) {
          if (op.kind === 'record') {
            breaker.record(op.outcome, 10);
            admittedWhileOpen = 0;
          } else if (op.kind === 'advance') clock.advance(op.ms);
          else if (op.kind === 'tick') breaker.tick(op.group === null ? null : { state: op.group });
          else {
            const before = breaker.state;
            const admitted = breaker.allow();
            if (before === 'paused') expect(admitted).toBe(false);
            if (before !== 'closed' && admitted) {
              admittedWhileOpen += 1;
              expect(breaker.state).toBe('self_probe');
            }
            expect(admittedWhileOpen).toBeLessThanOrEqual(1);
          }
        }
      }),
    );
  });
});
