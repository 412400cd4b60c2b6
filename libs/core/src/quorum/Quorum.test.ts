import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportedState } from '../wire.js';
import {
  DEFAULT_QUORUM,
  evaluateQuorum,
  quorumThreshold,
  type QuorumContext,
  type QuorumRow,
} from './Quorum.js';

const TTL = 3_000;
const NOW = 100_000;

function row(instanceId: string, state: ReportedState, ageMs = 0): QuorumRow {
  return {
    instanceId,
    region: 'eu-west',
    state,
    lastSeenAt: NOW - ageMs,
    openSince: state === 'open' ? NOW - 1 : null,
  };
}

function ctx(overrides: Partial<QuorumContext> = {}): QuorumContext {
  return { now: NOW, heartbeatTtlMs: TTL, policy: DEFAULT_QUORUM, learningUntil: 0, ...overrides };
}

describe('quorumThreshold', () => {
  it('matches the worked examples', () => {
    expect(quorumThreshold(0, DEFAULT_QUORUM)).toBe(2);
    expect(quorumThreshold(1, DEFAULT_QUORUM)).toBe(2);
    expect(quorumThreshold(3, DEFAULT_QUORUM)).toBe(2);
    expect(quorumThreshold(5, DEFAULT_QUORUM)).toBe(3);
    expect(quorumThreshold(300, DEFAULT_QUORUM)).toBe(150);
    expect(quorumThreshold(30, { fraction: 0.1, minOpen: 1 })).toBe(3); // 0.1·30 is 3.0000000000000004 in floats
    expect(quorumThreshold(0, { fraction: 0.5, minOpen: 0 })).toBe(1);
  });

  it('equals the exact integer ceil(p·L/100) for every L in 0..10,000 and every percentage p', () => {
    for (let p = 1; p <= 100; p++) {
      const policy = { fraction: p / 100, minOpen: 1 };
      for (let live = 0; live <= 10_000; live++) {
        const exact = Math.max(1, Math.floor((p * live + 99) / 100));
        if (quorumThreshold(live, policy) !== exact) {
          throw new Error(`L=${live} p=${p}: got ${quorumThreshold(live, policy)}, expected ${exact}`);
        }
      }
    }
  });

  it('is the smallest K >= minOpen with K >= fraction·L, for any L in 0..10,000 and any fraction in (0, 1]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 50 }),
        (live, fraction, minOpen) => {
          const k = quorumThreshold(live, { fraction, minOpen });
          const need = fraction * live;
          expect(Number.isInteger(k)).toBe(true);
          expect(k).toBeGreaterThanOrEqual(minOpen);
          expect(k).toBeGreaterThanOrEqual(need - 1e-6);
          // minimal: one fewer would either drop below minOpen or below the fraction
          if (k > minOpen) expect(k - 1).toBeLessThan(need);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never exceeds live when minOpen <= live (a full fleet can always open)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        (live, fraction) => {
          expect(quorumThreshold(live, { fraction, minOpen: Math.min(2, live) })).toBeLessThanOrEqual(live);
        },
      ),
    );
  });
});

describe('evaluateQuorum', () => {
  it('opens when K of the live instances are locally open and names them', () => {
    const rows = [row('c', 'open'), row('a', 'half_open'), row('b', 'closed'), row('d', 'closed')];
    const decision = evaluateQuorum(rows, ctx());
    expect(decision).toEqual({
      open: 2,
      live: 4,
      threshold: 2,
      reached: true,
      learning: false,
      formedBy: ['a', 'c'],
    });
  });

  it('does not count paused or fallback instances as locally open', () => {
    const rows = [row('a', 'paused'), row('b', 'fallback'), row('c', 'open'), row('d', 'closed')];
    const decision = evaluateQuorum(rows, ctx());
    expect(decision.open).toBe(1);
    expect(decision.reached).toBe(false);
  });

  it('counts a row at age TTL-1 ms as live and at age TTL and TTL+1 ms as dead', () => {
    const justLive = evaluateQuorum([row('a', 'open', TTL - 1)], ctx());
    const atTtl = evaluateQuorum([row('a', 'open', TTL)], ctx());
    const justDead = evaluateQuorum([row('a', 'open', TTL + 1)], ctx());
    expect(justLive.live).toBe(1);
    expect(justLive.formedBy).toEqual(['a']);
    expect(atTtl.live).toBe(0);
    expect(justDead.live).toBe(0);
    expect(justDead.formedBy).toEqual([]);
  });

  it('lets dead open instances drop out of both L and the open count', () => {
    const rows = [row('a', 'open', TTL + 1), row('b', 'open', TTL + 1), row('c', 'closed'), row('d', 'open')];
    const decision = evaluateQuorum(rows, ctx());
    expect(decision).toMatchObject({ live: 2, open: 1, threshold: 2, reached: false });
  });

  it('declares no quorum during the learning period: reached false at learningUntil-1 ms, true at learningUntil', () => {
    const rows = [row('a', 'open'), row('b', 'open'), row('c', 'open')];
    const before = evaluateQuorum(rows, ctx({ learningUntil: NOW + 1 }));
    const at = evaluateQuorum(rows, ctx({ learningUntil: NOW }));
    expect(before).toMatchObject({ reached: false, learning: true, open: 3, threshold: 2 });
    expect(at).toMatchObject({ reached: true, learning: false });
  });

  const stateArb = fc.constantFrom<ReportedState>('closed', 'open', 'half_open', 'paused', 'fallback');
  const rowsArb = fc.array(fc.record({ state: stateArb, ageMs: fc.integer({ min: 0, max: 2 * TTL }) }), {
    maxLength: 60,
  });
  const rowsOf = (specs: { state: ReportedState; ageMs: number }[]): QuorumRow[] =>
    specs.map((s, i) => row(`i-${i}`, s.state, s.ageMs));

  it('never opens a group with fewer live instances than minOpen', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 1, max: 80 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (specs, minOpen, fraction) => {
          const decision = evaluateQuorum(rowsOf(specs), ctx({ policy: { fraction, minOpen } }));
          if (decision.live < minOpen) expect(decision.reached).toBe(false);
        },
      ),
    );
  });

  it('never reaches quorum with a single open instance when minOpen >= 2', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 2, max: 10 }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        (closedCount, minOpen, fraction) => {
          const rows = [row('bad', 'open')];
          // the closed rows only matter through L; build them lazily for large L
          for (let i = 0; i < Math.min(closedCount, 200); i++) rows.push(row(`ok-${i}`, 'closed'));
          expect(evaluateQuorum(rows, ctx({ policy: { fraction, minOpen } })).reached).toBe(false);
        },
      ),
    );
  });

  it('reaches quorum exactly when the live open count meets the threshold (outside learning)', () => {
    fc.assert(
      fc.property(rowsArb, (specs) => {
        const rows = rowsOf(specs);
        const decision = evaluateQuorum(rows, ctx());
        const live = specs.filter((s) => s.ageMs < TTL);
        const open = live.filter((s) => s.state === 'open' || s.state === 'half_open').length;
        expect(decision.live).toBe(live.length);
        expect(decision.open).toBe(open);
        expect(decision.formedBy).toHaveLength(open);
        expect(decision.reached).toBe(open >= quorumThreshold(live.length, DEFAULT_QUORUM));
      }),
    );
  });
});
