import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GlobalState, ReportedState } from '../wire.js';
import { followedScope, mayOpenRegion, regionsToOpen, type RegionRow } from './RegionBreaker.js';

const NOW = 100_000;
const TTL = 5_000;
const QUORUM = { fraction: 0.5, minOpen: 2 };
const ctx = { now: NOW, heartbeatTtlMs: TTL, quorum: QUORUM, learningUntil: 0 };

function row(instanceId: string, region: string, failing: boolean, lastSeenAt = NOW - 100): RegionRow {
  const state: ReportedState = failing ? 'open' : 'closed';
  return {
    instanceId,
    region,
    state,
    lastSeenAt,
    openSince: failing ? NOW - 1000 : null,
    evidence: {
      attempts: 100,
      successes: failing ? 0 : 99,
      byClass: {
        overload: 0,
        network: failing ? 100 : 1,
        rate_limited: 0,
        auth: 0,
        client_error: 0,
        slow: 0,
      },
      latencyP95Ms: null,
      ttftP95Ms: null,
      queueAgeMs: null,
    },
  };
}

/** `n` instances per region; regions in `failing` have every instance locally open. */
function fleet(regions: string[], n: number, failing: string[]): RegionRow[] {
  return regions.flatMap((r) =>
    Array.from({ length: n }, (_, i) => row(`${r}-${i}`, r, failing.includes(r))),
  );
}

describe('regionsToOpen', () => {
  it('opens only the region at quorum while the rest of the pool is healthy, with its figures', () => {
    const out = regionsToOpen(fleet(['a', 'b', 'c'], 4, ['a']), ctx);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ region: 'a', open: 4, live: 4, threshold: 2, reached: true });
    expect(out[0]!.formedBy).toEqual(['a-0', 'a-1', 'a-2', 'a-3']);
    expect(out[0]!.regionErrorRate).toBe(1);
    expect(out[0]!.poolErrorRate).toBeGreaterThan(0.3);
  });

  it('opens nothing while the group learns', () => {
    expect(regionsToOpen(fleet(['a', 'b', 'c'], 4, ['a']), { ...ctx, learningUntil: NOW + 1 })).toEqual([]);
  });

  it('opens nothing when the pool reached quorum (that is the group breaker’s open)', () => {
    expect(regionsToOpen(fleet(['a', 'b', 'c'], 4, ['a', 'b']), ctx)).toEqual([]);
  });

  it('opens nothing in a one-region group, however many are open', () => {
    expect(regionsToOpen(fleet(['a'], 6, ['a']), ctx)).toEqual([]);
  });

  it('counts only live rows: a region whose open instances went silent does not open', () => {
    const rows = fleet(['a', 'b', 'c'], 4, []);
    rows.push(row('a-x', 'a', true, NOW - TTL - 1), row('a-y', 'a', true, NOW - TTL - 1));
    expect(regionsToOpen(rows, ctx)).toEqual([]);
  });

  it('property: never during learning, never a single region, every opening at its region quorum', () => {
    const arb = fc.record({
      regions: fc.integer({ min: 1, max: 4 }),
      perRegion: fc.integer({ min: 1, max: 6 }),
      openMask: fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
      learning: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ regions, perRegion, openMask, learning }) => {
        const names = ['a', 'b', 'c', 'd'].slice(0, regions);
        const rows = names.flatMap((r, ri) =>
          Array.from({ length: perRegion }, (_, i) => row(`${r}-${i}`, r, openMask[ri * 6 + i]!)),
        );
        const out = regionsToOpen(rows, { ...ctx, learningUntil: learning ? NOW + 1 : 0 });
        if (learning || regions === 1) expect(out).toEqual([]);
        const totalOpen = rows.filter((r) => r.state === 'open').length;
        for (const o of out) {
          expect(o.open).toBeGreaterThanOrEqual(o.threshold);
          expect(o.formedBy).toHaveLength(o.open);
          // the cheap filter never hides a region that would open
          expect(mayOpenRegion(totalOpen, ctx)).toBe(true);
        }
        // never every region at once: that is the pool's quorum
        expect(out.length).toBeLessThan(Math.max(1, regions));
      }),
    );
  });
});

describe('followedScope', () => {
  it('an instance follows its region breaker only while the group is closed and the region is not', () => {
    expect(followedScope('closed', 'open')).toBe('region');
    expect(followedScope('closed', 'ramping')).toBe('region');
    expect(followedScope('closed', 'closed')).toBe('group');
    expect(followedScope('closed', null)).toBe('group');
    expect(followedScope('open', 'probing')).toBe('group');
  });

  it('property: a group breaker that is not CLOSED is always followed', () => {
    const states: GlobalState[] = ['closed', 'open', 'probing', 'ramping'];
    fc.assert(
      fc.property(fc.constantFrom(...states), fc.constantFrom(...states, null), (g, r) => {
        if (g !== 'closed') expect(followedScope(g, r)).toBe('group');
        else expect(followedScope(g, r)).toBe(r !== null && r !== 'closed' ? 'region' : 'group');
      }),
    );
  });
});
