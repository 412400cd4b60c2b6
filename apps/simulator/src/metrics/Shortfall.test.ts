import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransitionFigures } from '@recloser/core';
import type { Transition } from './Recorder.js';
import { phaseAfter, SHORTFALL_PHASES, shortfallByPhase } from './Shortfall.js';

type T = Pick<Transition, 'at' | 'from' | 'to' | 'figures'>;
const t = (at: number, from: string, to: string, figures: TransitionFigures = {}): T => ({
  at,
  from,
  to,
  figures,
});
const gates = (outcome: 'pass' | 'degrade' | 'collapse'): TransitionFigures['gates'] => ({
  outcome,
  attempts: 20,
  minSample: 10,
  successRate: 1,
  rate429: 0,
  latencyP95Ms: 300,
  ttftP95Ms: null,
  queueAgeMs: null,
  failed: outcome === 'pass' ? [] : ['latencyInflation'],
});

// an outage from 0 to 10 s, a run of 30 s, 10 calls/s servable: seconds 10..29 count (200 calls)
const RUN = { outageEndMs: 10_000, durationMs: 30_000, servableAfterPerSec: 10 };
const RECOVERY: T[] = [
  t(5_000, 'closed', 'open'), // the outage's quorum open
  t(11_000, 'open', 'probing'),
  t(12_000, 'probing', 'ramping'), // the first ramp: climb
  t(14_000, 'ramping', 'ramping', { gates: gates('pass'), level: 0.3 }), // grown: still the climb
  t(16_000, 'ramping', 'ramping', { gates: gates('pass'), level: 0.3, settled: true }), // settled
  t(20_000, 'ramping', 'ramping', { gates: gates('degrade'), level: 0.24 }), // cut
  t(22_000, 'ramping', 'ramping', { gates: gates('pass'), level: 0.27 }), // bisection: still the cut
  t(24_000, 'ramping', 'ramping', { gates: gates('pass'), level: 0.27, settled: true }), // settled
  t(26_000, 'ramping', 'open'), // a collapse: a re-trip
  t(27_000, 'open', 'probing'),
  t(27_500, 'probing', 'ramping'), // the climb back belongs to the re-trip
  t(28_500, 'ramping', 'closed'),
];

describe('shortfallByPhase: when a recovery lost the work it lost', () => {
  it('puts each second in the phase the breaker was in as it began, in points of servable', () => {
    // accepted per second: nothing while waiting, 5 while climbing, 9 settled, 7 in the cut, nothing
    // reopened, 12 once closed (a queue draining: more than servable)
    const accepted: Record<string, number> = {
      waiting: 0,
      climb: 5,
      settled: 9,
      cut: 7,
      reopened: 0,
      closed: 12,
    };
    // the phase at the end of each second from 10 s: a transition at 28.5 s counts from second 28
    const phases = (
      'waiting waiting climb climb climb climb settled settled settled settled cut cut cut cut ' +
      'settled settled reopened reopened closed closed'
    ).split(' ');
    const shortfall = shortfallByPhase(RECOVERY, (s) => accepted[phases[s - 10]!]!, RUN)!;
    expect(shortfall).toEqual({
      waiting: { points: 10, seconds: 2 },
      climb: { points: 10, seconds: 4 },
      settled: { points: 3, seconds: 6 },
      cut: { points: 6, seconds: 4 },
      reopened: { points: 10, seconds: 2 },
      closed: { points: -2, seconds: 2 },
    });
  });

  it('a breaker that never opened (or had closed before the outage ended) loses only while closed', () => {
    const none = shortfallByPhase([], () => 9, RUN)!;
    expect(none.closed).toEqual({ points: 10, seconds: 20 });
    const closedEarly = shortfallByPhase(
      [t(2_000, 'closed', 'open'), t(8_000, 'ramping', 'closed')],
      () => 9,
      RUN,
    )!;
    expect(closedEarly.closed.seconds).toBe(20);
  });

  it('a quorum open after the breaker closed is a re-trip too; only a move core marks settled settles', () => {
    expect(phaseAfter('closed', t(0, 'closed', 'open'))).toBe('reopened');
    expect(phaseAfter('climb', t(0, 'ramping', 'ramping', { gates: gates('pass'), settled: true }))).toBe(
      'settled',
    );
    // a try above the limit carries no settled mark: the phase it tries from goes on
    expect(phaseAfter('settled', t(0, 'ramping', 'ramping', { gates: gates('pass'), level: 0.31 }))).toBe(
      'settled',
    );
    // probes during a re-trip's cooldown stay in it; a probe that failed while waiting stays waiting
    expect(phaseAfter('reopened', t(0, 'probing', 'open'))).toBe('reopened');
    expect(phaseAfter('waiting', t(0, 'probing', 'open'))).toBe('waiting');
  });

  it('the phases add up to 100 × (1 − accepted / servable), whatever the transitions', () => {
    const states = ['open', 'probing', 'ramping', 'closed'];
    const transition = fc.record({
      at: fc.integer({ min: 0, max: 30_000 }),
      from: fc.constantFrom(...states),
      to: fc.constantFrom(...states),
      figures: fc.record(
        {
          gates: fc.constantFrom('pass' as const, 'degrade' as const, 'collapse' as const).map(gates),
          settled: fc.constant(true as const),
        },
        { requiredKeys: [] },
      ),
    });
    fc.assert(
      fc.property(
        fc.array(transition, { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 20, maxLength: 20 }),
        (ts, perSecond) => {
          const sorted = [...ts].sort((a, b) => a.at - b.at);
          const shortfall = shortfallByPhase(sorted, (s) => perSecond[s - 10]!, RUN)!;
          const accepted = perSecond.reduce((a, b) => a + b, 0);
          const points = SHORTFALL_PHASES.reduce((sum, p) => sum + shortfall[p].points, 0);
          const seconds = SHORTFALL_PHASES.reduce((sum, p) => sum + shortfall[p].seconds, 0);
          expect(seconds).toBe(20);
          expect(points).toBeCloseTo(100 * (1 - accepted / 200), 1);
        },
      ),
    );
  });

  it('is null when nothing was servable', () => {
    expect(shortfallByPhase(RECOVERY, () => 0, { ...RUN, servableAfterPerSec: 0 })).toBeNull();
  });
});
