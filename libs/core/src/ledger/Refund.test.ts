import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_OUTCOMES } from '../outcome/allOutcomes.test-support.js';
import { isSystemic } from '../outcome/Outcome.js';
import type { GlobalState, Outcome } from '../wire.js';
import {
  currentRun,
  decideRefund,
  endedRun,
  judgeableBefore,
  ledgerEventTime,
  MAX_LEDGER_EVENT_AGE_MS,
  MAX_LEDGER_EVENT_SKEW_MS,
  refundReason,
  refundsOnce,
  windowsOf,
  type GlobalTimeline,
  type Interval,
  type LedgerEvent,
  type RefundContext,
} from './Refund.js';

const STALE = 1000;
// closed until 10 s, open 10–40 s, probing 40–45 s, ramping 45–60 s, closed after
const FLAP: GlobalTimeline = {
  initial: 'closed',
  changes: [
    { at: 10_000, to: 'open' },
    { at: 40_000, to: 'probing' },
    { at: 45_000, to: 'ramping' },
    { at: 60_000, to: 'closed' },
  ],
};

function ev(kind: LedgerEvent['kind'], at: number, outcome?: Outcome, id = 'e1'): LedgerEvent {
  return {
    eventId: id,
    workId: 'w1',
    instanceId: 'i1',
    dependency: 'llm',
    kind,
    at,
    ...(outcome ? { outcome } : {}),
  };
}

function ctx(over: Partial<RefundContext> = {}): RefundContext {
  return { global: FLAP, localOpen: [], staleMs: STALE, ...over };
}

describe('refundReason: reclaims', () => {
  it('refunds a reclaim from the instant the breaker opened, not 1 ms before', () => {
    expect(refundReason(ev('reclaim', 9_999), ctx())).toBeNull();
    expect(refundReason(ev('reclaim', 10_000), ctx())).toMatch(/not closed globally/);
  });

  it('refunds through probing and ramping and one tick after the close (stale snapshot), not 1 ms later', () => {
    expect(refundReason(ev('reclaim', 42_000), ctx())).not.toBeNull();
    expect(refundReason(ev('reclaim', 50_000), ctx())).not.toBeNull();
    expect(refundReason(ev('reclaim', 60_000 + STALE), ctx())).not.toBeNull();
    expect(refundReason(ev('reclaim', 60_000 + STALE + 1), ctx())).toBeNull();
  });

  it("refunds a reclaim while only the instance's own breaker was open, with a tick either side", () => {
    const local: Interval[] = [{ from: 70_000, to: 75_000 }];
    expect(refundReason(ev('reclaim', 70_000 - STALE - 1), ctx({ localOpen: local }))).toBeNull();
    expect(refundReason(ev('reclaim', 70_000 - STALE), ctx({ localOpen: local }))).toMatch(/locally open/);
    expect(refundReason(ev('reclaim', 75_000 + STALE), ctx({ localOpen: local }))).toMatch(/locally open/);
    expect(refundReason(ev('reclaim', 75_000 + STALE + 1), ctx({ localOpen: local }))).toBeNull();
  });

  it('treats a local run still going as open until now', () => {
    expect(refundReason(ev('reclaim', 1e9), ctx({ localOpen: [{ from: 80_000, to: null }] }))).not.toBeNull();
  });

  it('refunds nothing for a dependency without a breaker unless the instance was locally open', () => {
    expect(refundReason(ev('reclaim', 20_000), ctx({ global: null }))).toBeNull();
  });
});

describe('refundReason: attempts', () => {
  it('refunds a systemic failure while globally open or probing, one tick after, never while ramping or closed', () => {
    expect(refundReason(ev('attempt', 9_999, 'overload'), ctx())).toBeNull();
    expect(refundReason(ev('attempt', 10_000, 'overload'), ctx())).toMatch(/systemically \(overload\)/);
    expect(refundReason(ev('attempt', 42_000, 'network'), ctx())).not.toBeNull();
    expect(refundReason(ev('attempt', 45_000 + STALE, 'slow'), ctx())).not.toBeNull();
    expect(refundReason(ev('attempt', 45_000 + STALE + 1, 'slow'), ctx())).toBeNull();
    expect(refundReason(ev('attempt', 70_000, 'overload'), ctx())).toBeNull();
  });

  it('never refunds a non-systemic failure or a success, even while open', () => {
    for (const o of ['client_error', 'auth', 'success', 'cancelled', 'rate_limited'] as const)
      expect(refundReason(ev('attempt', 20_000, o), ctx())).toBeNull();
    expect(refundReason(ev('attempt', 20_000), ctx())).toBeNull();
  });

  it('does not refund attempts for a local open alone (the instance chose to call)', () => {
    const local = [{ from: 70_000, to: 75_000 }];
    expect(refundReason(ev('attempt', 72_000, 'overload'), ctx({ localOpen: local }))).toBeNull();
  });
});

describe('decideRefund and refundsOnce', () => {
  it('refunds the counts the event stands for, in its own column', () => {
    expect(decideRefund({ ...ev('reclaim', 20_000), count: 3 }, ctx())).toMatchObject({
      attempts: 0,
      reclaims: 3,
    });
    expect(decideRefund(ev('attempt', 20_000, 'overload'), ctx())).toMatchObject({
      attempts: 1,
      reclaims: 0,
    });
  });

  it('skips replays within a batch and ids already refunded', () => {
    const a = ev('reclaim', 20_000, undefined, 'a');
    const b = ev('reclaim', 20_000, undefined, 'b');
    expect(refundsOnce([a, a, b], () => ctx(), new Set(['b'])).map((r) => r.eventId)).toEqual(['a']);
  });
});

describe('timings', () => {
  it('judges an event only a TTL and a tick after it', () => {
    expect(judgeableBefore(100_000, { heartbeatTtlMs: 5000, staleMs: 1000 })).toBe(94_000);
  });

  it('takes an early clock as now, refuses one past the skew allowance or older than the history', () => {
    const now = 1e12;
    expect(ledgerEventTime(now + 10, now)).toEqual({ at: now });
    expect(ledgerEventTime(now + MAX_LEDGER_EVENT_SKEW_MS, now)).toEqual({ at: now });
    expect(ledgerEventTime(now + MAX_LEDGER_EVENT_SKEW_MS + 1, now)).toHaveProperty('problem');
    expect(ledgerEventTime(now - MAX_LEDGER_EVENT_AGE_MS, now)).toEqual({
      at: now - MAX_LEDGER_EVENT_AGE_MS,
    });
    expect(ledgerEventTime(now - MAX_LEDGER_EVENT_AGE_MS - 1, now)).toHaveProperty('problem');
    expect(ledgerEventTime(Number.NaN, now)).toHaveProperty('problem');
  });

  it('windowsOf extends each window one tick past its end', () => {
    expect(windowsOf(FLAP, ['open'], STALE)).toEqual([{ from: 10_000, to: 40_000 + STALE }]);
  });
});

// ---- properties, against an oracle that samples the timeline at every millisecond ---------------

const STATES: GlobalState[] = ['closed', 'open', 'probing', 'ramping'];
const arbTimeline: fc.Arbitrary<GlobalTimeline> = fc
  .record({
    initial: fc.constantFrom(...STATES),
    steps: fc.array(fc.record({ gap: fc.integer({ min: 1, max: 40 }), to: fc.constantFrom(...STATES) }), {
      maxLength: 6,
    }),
  })
  .map(({ initial, steps }) => {
    let at = 0;
    return { initial, changes: steps.map((s) => ({ at: (at += s.gap), to: s.to })) };
  });
const arbRuns: fc.Arbitrary<Interval[]> = fc.array(
  fc
    .record({ from: fc.integer({ min: 0, max: 200 }), len: fc.option(fc.integer({ min: 0, max: 40 })) })
    .map(({ from, len }) => ({ from, to: len === null ? null : from + len })),
  { maxLength: 3 },
);
const arbEvent = (id: fc.Arbitrary<string>): fc.Arbitrary<LedgerEvent> =>
  fc.record({
    eventId: id,
    workId: fc.constantFrom('w1', 'w2'),
    instanceId: fc.constant('i1'),
    dependency: fc.constant('llm'),
    kind: fc.constantFrom('attempt' as const, 'reclaim' as const),
    outcome: fc.constantFrom(...ALL_OUTCOMES),
    at: fc.integer({ min: 0, max: 260 }),
  });

/** the state in force at `t`, and the one just before it (a change at `t` counts either way) */
function statesAround(tl: GlobalTimeline, t: number): GlobalState[] {
  let at = tl.initial;
  let before = tl.initial;
  for (const c of tl.changes) {
    if (c.at < t) before = c.to;
    if (c.at <= t) at = c.to;
  }
  return [at, before];
}

function oracle(e: LedgerEvent, tl: GlobalTimeline, runs: Interval[], stale: number): boolean {
  const globally = (ok: readonly GlobalState[]) => {
    for (let s = e.at - stale; s <= e.at; s++)
      if (statesAround(tl, s).some((x) => ok.includes(x))) return true;
    return false;
  };
  if (e.kind === 'attempt') return isSystemic(e.outcome!) && globally(['open', 'probing']);
  if (globally(['open', 'probing', 'ramping'])) return true;
  for (let s = e.at - stale; s <= e.at + stale; s++)
    if (runs.some((r) => s >= r.from && (r.to === null || s <= r.to))) return true;
  return false;
}

describe('refund rules (properties)', () => {
  it('refund exactly when the millisecond-sampling oracle says the breaker was open', () => {
    fc.assert(
      fc.property(
        arbTimeline,
        arbRuns,
        fc.integer({ min: 0, max: 15 }),
        arbEvent(fc.constant('e')),
        (tl, runs, stale, e) => {
          const got = refundReason(e, { global: tl, localOpen: runs, staleMs: stale }) !== null;
          expect(got).toBe(oracle(e, tl, runs, stale));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never refunds an attempt that failed non-systemically, nor any attempt while closed for a tick', () => {
    fc.assert(
      fc.property(
        arbTimeline,
        arbRuns,
        fc.integer({ min: 0, max: 15 }),
        arbEvent(fc.constant('e')),
        (tl, runs, stale, e) => {
          fc.pre(e.kind === 'attempt');
          const closedThrough = (() => {
            for (let s = e.at - stale; s <= e.at; s++)
              if (statesAround(tl, s).some((x) => x !== 'closed')) return false;
            return true;
          })();
          fc.pre(!isSystemic(e.outcome!) || closedThrough);
          expect(decideRefund(e, { global: tl, localOpen: runs, staleMs: stale })).toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refunds every event exactly once however the stream is batched and replayed', () => {
    fc.assert(
      fc.property(
        arbTimeline,
        arbRuns,
        fc.array(arbEvent(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f')), { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 10 }),
        (tl, runs, stream, sizes) => {
          const context = (): RefundContext => ({ global: tl, localOpen: runs, staleMs: 5 });
          // the ledger keeps the first report of an id (idempotent by eventId)
          const first = new Map<string, LedgerEvent>();
          for (const e of stream) if (!first.has(e.eventId)) first.set(e.eventId, e);
          const refunded = new Set<string>();
          const counts = new Map<string, number>();
          let i = 0;
          for (let b = 0; i < stream.length; b++) {
            const size = sizes[b % sizes.length]!;
            const batch = stream.slice(i, i + size).map((e) => first.get(e.eventId)!);
            i += size;
            for (const r of refundsOnce(batch, context, refunded)) {
              refunded.add(r.eventId);
              counts.set(r.eventId, (counts.get(r.eventId) ?? 0) + 1);
            }
          }
          for (const [id, e] of first) {
            const want = refundReason(e, context()) !== null ? 1 : 0;
            expect(counts.get(id) ?? 0).toBe(want);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('local runs', () => {
  it('an ended run lasts until the next report, at most a TTL after the last open one', () => {
    expect(endedRun({ openSince: 100, lastSeenAt: 500, nextSeenAt: 900 }, 5000)).toEqual({
      from: 100,
      to: 900,
    });
    expect(endedRun({ openSince: 100, lastSeenAt: 500, nextSeenAt: 99_000 }, 5000)).toEqual({
      from: 100,
      to: 5500,
    });
    expect(endedRun({ openSince: 100, lastSeenAt: 500, nextSeenAt: null }, 5000)).toEqual({
      from: 100,
      to: 5500,
    });
    expect(currentRun({ openSince: 100, lastSeenAt: 500 }, 5499, 5000)).toEqual({ from: 100, to: null });
    expect(currentRun({ openSince: 100, lastSeenAt: 500 }, 5500, 5000)).toEqual({ from: 100, to: 5500 });
    expect(currentRun({ openSince: null, lastSeenAt: 500 }, 600, 5000)).toBeNull();
  });
});
