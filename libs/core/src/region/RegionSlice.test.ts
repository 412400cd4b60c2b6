import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import { emptyEvidence } from '../outcome/Outcome.js';
import { regionShiftInput, type ShiftRow } from './RegionShift.js';
import { regionCapacityShare, regionSlice } from './RegionSlice.js';

const pool = () => {
  const p = DEFAULT_POOL('p', 'dep');
  p.capacity = { standard: { ratePerSec: 180, concurrency: 36 }, batch: { ratePerSec: 20, concurrency: 4 } };
  return p;
};

describe('regionCapacityShare / regionSlice', () => {
  it("scales every class's rate by the region's live share; concurrency rounds up, at least one", () => {
    expect(regionCapacityShare(50, 150)).toBeCloseTo(1 / 3, 12);
    const slice = regionSlice(pool(), regionCapacityShare(50, 150));
    expect(slice.capacity.standard!.ratePerSec).toBeCloseTo(60, 9);
    expect(slice.capacity.standard!.concurrency).toBe(12);
    expect(slice.capacity.batch!.concurrency).toBe(2);
    expect(regionSlice(pool(), 0.001).capacity.batch!.concurrency).toBe(1);
    // everything but the capacity is the pool's
    expect({ ...slice, capacity: null }).toEqual({ ...pool(), capacity: null });
  });

  it('no live instances, or nonsense, is no share; a share is never above the whole', () => {
    expect(regionCapacityShare(0, 10)).toBe(0);
    expect(regionCapacityShare(3, 0)).toBe(0);
    expect(regionCapacityShare(Number.NaN, 10)).toBe(0);
    expect(regionCapacityShare(12, 10)).toBe(1);
    expect(regionSlice(pool(), Number.NaN).capacity.standard!.ratePerSec).toBe(0);
    expect(regionSlice(pool(), 7).capacity.standard!.ratePerSec).toBe(180);
  });

  it('property: the slices of regions that partition the live instances add up to the pool’s rate, never more', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 8 }), (lives) => {
        const total = lives.reduce((a, b) => a + b, 0);
        const sum = lives.reduce(
          (s, n) => s + regionSlice(pool(), regionCapacityShare(n, total)).capacity.standard!.ratePerSec,
          0,
        );
        expect(sum).toBeLessThanOrEqual(180 + 1e-9);
        if (total > 0) expect(sum).toBeCloseTo(180, 6);
        for (const n of lives) {
          const share = regionCapacityShare(n, total);
          expect(share).toBeGreaterThanOrEqual(0);
          expect(share).toBeLessThanOrEqual(1);
        }
      }),
    );
  });

  it("the shift plan's region capacity is the same slice (one rule)", () => {
    const row = (instanceId: string, region: string): ShiftRow => ({
      instanceId,
      region,
      lastSeenAt: 900,
      evidence: emptyEvidence(),
      demand: { standard: 1 },
    });
    const rows = [row('a1', 'a'), row('b1', 'b'), row('b2', 'b'), row('c1', 'c')];
    const input = regionShiftInput(rows, {
      now: 1000,
      heartbeatTtlMs: 5000,
      source: 'a',
      sourceState: 'open',
      sourceLevel: null,
      poolCapacityPerSec: 180,
      maxReceiverErrorRate: 0.1,
    });
    const b = input.regions.find((r) => r.region === 'b')!;
    expect(b.capacityPerSec).toBeCloseTo(
      regionSlice(pool(), regionCapacityShare(2, 4)).capacity.standard!.ratePerSec,
      9,
    );
  });
});
