import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolConfig } from '../pool/PoolConfig.js';
import type { ClassAllowance } from '../wire.js';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';
import {
  type RampPosition,
  admissionLimit,
  divideAllowances,
  maxMinFair,
  rotationStart,
  ROTATION_TTLS,
  stepBudget,
  type InstanceDemand,
} from './Allowance.js';
import { rotationAt } from './Rotation.js';
import { TokenBucket } from './TokenBucket.js';
import { twoClassPool } from './twoClassPool.test-support.js';

/** The levels these tests divide: the grid pools used to step through (docs/api.md's example). */
const GRID = [0.01, 0.05, 0.1, 0.25, 0.5, 1.0];

/** The ramp position of the k-th grid level: class k joins at move k. */
function gridAt(_p: PoolConfig, k: number): RampPosition {
  return { step: k, level: GRID[k] ?? Number.NaN };
}

const sum = (xs: Iterable<number>) => [...xs].reduce((a, b) => a + b, 0);

describe('maxMinFair', () => {
  it('fills the small demands first and splits the rest evenly', () => {
    const s = maxMinFair(10, [
      { id: 'a', demand: 1 },
      { id: 'b', demand: 100 },
      { id: 'c', demand: 100 },
    ]);
    expect(s.get('a')).toBe(1);
    expect(s.get('b')).toBe(4.5);
    expect(s.get('c')).toBe(4.5);
  });

  it('gives everyone its demand when the budget suffices, and zero demand nothing', () => {
    const s = maxMinFair(100, [
      { id: 'a', demand: 3 },
      { id: 'b', demand: 0 },
      { id: 'c', demand: -2 },
      { id: 'd', demand: Number.NaN },
    ]);
    expect([...s.entries()]).toEqual([
      ['a', 3],
      ['b', 0],
      ['c', 0],
      ['d', 0],
    ]);
  });

  const demands = fc.uniqueArray(
    fc.record({ id: fc.integer({ min: 0, max: 1e6 }), demand: fc.double({ min: 0, max: 1e4, noNaN: true }) }),
    { maxLength: 60, size: 'medium', selector: (d) => d.id },
  );
  const budget = fc.double({ min: 0, max: 1e5, noNaN: true });

  it('property: never over budget or demand, max-min fair, work-conserving', () => {
    fc.assert(
      fc.property(budget, demands, (b, ds) => {
        const s = maxMinFair(b, ds);
        expect(sum(s.values())).toBeLessThanOrEqual(b);
        const wanted = sum(ds.map((d) => d.demand));
        expect(sum(s.values())).toBeGreaterThanOrEqual(Math.min(b, wanted) * (1 - 1e-9) - 1e-9);
        for (const d of ds) {
          const mine = s.get(d.id)!;
          expect(mine).toBeLessThanOrEqual(d.demand);
          if (d.demand === 0) expect(mine).toBe(0);
          if (mine < d.demand * (1 - 1e-9)) {
            for (const other of s.values()) expect(other).toBeLessThanOrEqual(mine * (1 + 1e-9) + 1e-12);
          }
        }
      }),
    );
  });

  it('property: monotone in the budget', () => {
    fc.assert(
      fc.property(budget, budget, demands, (x, y, ds) => {
        const [lo, hi] = x <= y ? [x, y] : [y, x];
        const a = maxMinFair(lo, ds);
        const b = maxMinFair(hi, ds);
        for (const d of ds) expect(a.get(d.id)!).toBeLessThanOrEqual(b.get(d.id)! * (1 + 1e-9) + 1e-12);
      }),
    );
  });
});

describe('stepBudget', () => {
  it('admits class k from step k at the step fraction of its capacity', () => {
    const p = twoClassPool();
    expect(stepBudget(p, gridAt(p, 0))).toEqual({ standard: { ratePerSec: 5, concurrency: 2 } });
    expect(stepBudget(p, gridAt(p, 1))).toEqual({
      standard: { ratePerSec: 25, concurrency: 10 },
      long_context: { ratePerSec: 1, concurrency: 1 },
    });
    expect(stepBudget(p, gridAt(p, 5))).toEqual(p.capacity);
  });

  it('has at least one call of concurrency, and nothing outside the steps', () => {
    const p = DEFAULT_POOL('x', 'x'); // 1 % of 50 calls is half a call
    expect(stepBudget(p, gridAt(p, 0))).toEqual({ standard: { ratePerSec: 1, concurrency: 1 } });
    expect(stepBudget(p, gridAt(p, -1))).toEqual({});
    expect(stepBudget(p, gridAt(p, 6))).toEqual({});
  });
});

describe('divideAllowances', () => {
  it('divides a step by demand and gives no-demand instances nothing', () => {
    const a = divideAllowances(twoClassPool(), gridAt(twoClassPool(), 1), [
      { instanceId: 'i1', demand: { standard: 5 } },
      { instanceId: 'i2', demand: { standard: 100, long_context: 3 } },
      { instanceId: 'i3', demand: {} },
      { instanceId: 'i4', demand: { standard: 0 } },
    ]);
    expect(a.get('i1')).toEqual({ standard: { ratePerSec: 5, burst: 2, concurrency: 2 } });
    expect(a.get('i2')).toEqual({
      standard: { ratePerSec: 20, burst: 8, concurrency: 8 },
      long_context: { ratePerSec: 1, burst: 1, concurrency: 1 },
    });
    expect(a.has('i3')).toBe(false);
    expect(a.has('i4')).toBe(false);
  });

  it('at a one-call step admits one instance at a time and rotates through all of them', () => {
    const p = DEFAULT_POOL('x', 'x');
    const fleet = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ instanceId: id, demand: { standard: 2 } }));
    const seen: string[] = [];
    for (let r = 0; r < 5; r++) {
      const a = divideAllowances(p, gridAt(p, 0), fleet, r);
      expect(a.size).toBe(1);
      const [id, classes] = [...a.entries()][0]!;
      expect(classes.standard).toEqual({ ratePerSec: 1, burst: 1, concurrency: 1 });
      seen.push(id);
    }
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('at full capacity admits floor(rate) instances when the rate exceeds the calls, one call each', () => {
    const p = twoClassPool(); // standard: 500/s, 200 calls
    const many = Array.from({ length: 600 }, (_, i) => ({
      instanceId: `i${String(i).padStart(3, '0')}`,
      demand: { standard: 2 },
    }));
    const last = GRID.length - 1;
    const a = divideAllowances(p, gridAt(p, last), many.slice(0, 500));
    expect(a.size).toBe(500);
    for (const c of a.values()) expect(c.standard).toEqual({ ratePerSec: 1, burst: 1, concurrency: 1 });
    // more wanting than floor(rate): 500 of the 600 this period, the others next period
    const b = divideAllowances(p, gridAt(p, last), many, 0);
    expect(b.size).toBe(500);
    const c = divideAllowances(p, gridAt(p, last), many, 1);
    expect(new Set([...b.keys(), ...c.keys()]).size).toBe(600);
  });

  it('admits max(calls, floor(rate)): a fractional rate rounds down, more calls than rate admits the calls', () => {
    const p = twoClassPool();
    p.capacity = { standard: { ratePerSec: 10.9, concurrency: 4 } };
    const fleet12 = Array.from({ length: 12 }, (_, i) => ({ instanceId: `i${i}`, demand: { standard: 5 } }));
    const last = GRID.length - 1;
    expect(divideAllowances(p, gridAt(p, last), fleet12).size).toBe(10);
    p.capacity = { standard: { ratePerSec: 4, concurrency: 8 } };
    const a = divideAllowances(p, gridAt(p, last), fleet12);
    expect(a.size).toBe(8);
    expect(sum([...a.values()].map((c) => c.standard!.concurrency))).toBe(8);
  });

  const fleet = fc.uniqueArray(
    fc.record({
      instanceId: fc.string({ minLength: 1, maxLength: 6 }),
      demand: fc.record(
        {
          standard: fc.double({ min: 0, max: 400, noNaN: true }),
          long_context: fc.double({ min: 0, max: 30, noNaN: true }),
        },
        { requiredKeys: [] },
      ),
    }),
    { maxLength: 80, size: 'medium', selector: (d) => d.instanceId },
  );
  const poolArb = fc
    .record({
      rate: fc.double({ min: 0.1, max: 1000, noNaN: true }),
      conc: fc.integer({ min: 1, max: 300 }),
      lrate: fc.double({ min: 0.1, max: 50, noNaN: true }),
      lconc: fc.integer({ min: 1, max: 20 }),
    })
    .map(({ rate, conc, lrate, lconc }) => {
      const p = twoClassPool();
      p.capacity = {
        standard: { ratePerSec: rate, concurrency: conc },
        long_context: { ratePerSec: lrate, concurrency: lconc },
      };
      return p;
    });

  function check(p: PoolConfig, step: number, demands: InstanceDemand[], rotation: number) {
    const a = divideAllowances(p, gridAt(p, step), demands, rotation);
    const budget = stepBudget(p, gridAt(p, step));
    for (const cls of Object.keys(p.capacity)) {
      const mine = [...a.entries()].filter(([, c]) => c[cls]).map(([id, c]) => ({ id, ...c[cls]! }));
      const b = budget[cls];
      if (!b) {
        expect(mine).toEqual([]);
        continue;
      }
      // to floating-point precision: shares of a budget summed back can exceed it by an ulp or two
      expect(sum(mine.map((m) => m.ratePerSec))).toBeLessThanOrEqual(b.ratePerSec * (1 + 1e-12));
      const limit = Math.max(1, b.concurrency, Math.floor(b.ratePerSec));
      expect(admissionLimit(b)).toBe(limit);
      expect(sum(mine.map((m) => m.concurrency))).toBeLessThanOrEqual(limit);
      expect(sum(mine.map((m) => m.burst))).toBeLessThanOrEqual(limit);
      // within the step's calls, concurrency never exceeds them
      if (mine.length <= b.concurrency)
        expect(sum(mine.map((m) => m.concurrency))).toBeLessThanOrEqual(b.concurrency);
      for (const m of mine) {
        const demand = demands.find((d) => d.instanceId === m.id)!.demand[cls] ?? 0;
        expect(demand).toBeGreaterThan(0);
        expect(m.ratePerSec).toBeLessThanOrEqual(demand);
        expect(Number.isInteger(m.concurrency) && m.concurrency >= 1).toBe(true);
        expect(Number.isInteger(m.burst) && m.burst >= 1).toBe(true);
        // max-min fair among the admitted
        if (m.ratePerSec < demand * (1 - 1e-9)) {
          for (const o of mine) expect(o.ratePerSec).toBeLessThanOrEqual(m.ratePerSec * (1 + 1e-9) + 1e-12);
        }
      }
      const wanting = demands.filter((d) => (d.demand[cls] ?? 0) > 0).length;
      expect(mine.length).toBe(Math.min(wanting, limit));
    }
    return a;
  }

  it('property: never exceeds a step budget, fair among the admitted, zero demand gets none', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: -1, max: 6 }), fleet, fc.nat(1e6), (p, step, ds, rot) => {
        check(p, step, ds, rot);
      }),
    );
  });

  it('property: when everyone fits, each instance gets at least as much at a higher step', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 0, max: 4 }), fleet, (p, step, ds) => {
        const lo = divideAllowances(p, gridAt(p, step), ds);
        const hi = divideAllowances(p, gridAt(p, step + 1), ds);
        const fits =
          ds.filter((d) => (d.demand.standard ?? 0) > 0).length <=
          admissionLimit(stepBudget(p, gridAt(p, step)).standard!);
        if (!fits) return;
        for (const [id, c] of lo) {
          if (!c.standard) continue;
          expect(hi.get(id)!.standard!.ratePerSec).toBeGreaterThanOrEqual(c.standard.ratePerSec * (1 - 1e-9));
        }
      }),
    );
  });

  it('property: consecutive rotations admit every wanting instance within 2 × ceil(wanting / limit) periods', () => {
    fc.assert(
      fc.property(poolArb, fleet, fc.nat(1e9), fc.integer({ min: 0, max: 5 }), (p, ds, start, step) => {
        const calls = admissionLimit(stepBudget(p, gridAt(p, step)).standard!);
        const wanting = ds.filter((d) => (d.demand.standard ?? 0) > 0).map((d) => d.instanceId);
        const seen = new Set<string>();
        for (let r = start; r < start + 2 * Math.ceil(wanting.length / calls); r++) {
          for (const [id, c] of divideAllowances(p, gridAt(p, step), ds, r)) if (c.standard) seen.add(id);
        }
        expect([...seen].sort()).toEqual([...wanting].sort());
      }),
    );
  });

  it('rotationStart is the golden-ratio (Weyl) start, whatever the window width; 0 for one or no instance', () => {
    expect([0, 1, 2, 3, 4].map((r) => rotationStart(r, 5))).toEqual([0, 3, 1, 4, 2]);
    expect(rotationStart(7, 1)).toBe(0);
    expect(rotationStart(7, 0)).toBe(0);
    expect(rotationStart(Number.NaN, 10)).toBe(0);
  });

  const idsOf = (a: Map<string, Record<string, unknown>>, cls: string) =>
    new Set([...a].filter(([, c]) => c[cls] !== undefined).map(([id]) => id));

  it('property: at one rotation a lower level admits a subset of a higher level (nested across level changes)', () => {
    fc.assert(
      fc.property(
        poolArb,
        fleet,
        fc.nat(1e9),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 3 }),
        (p, ds, rotation, x, y, step) => {
          const [a, b] = x <= y ? [x, y] : [y, x];
          const lo = divideAllowances(p, { step, level: a }, ds, rotation);
          const hi = divideAllowances(p, { step, level: b }, ds, rotation);
          for (const cls of Object.keys(stepBudget(p, { step, level: a }))) {
            const higher = idsOf(hi, cls);
            for (const id of idsOf(lo, cls)) expect(higher.has(id), `${cls} ${id}`).toBe(true);
          }
        },
      ),
    );
  });

  it('property: announced a move ahead, a fleet holds one window’s shares at every moment (no idle handover)', () => {
    fc.assert(
      fc.property(
        poolArb,
        fleet,
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 999 }), { minLength: 80, maxLength: 80 }),
        fc.nat(1e6),
        (p, ds, step, phases, from) => {
          const INTERVAL = 1000;
          const PERIOD = 5000;
          const T = (Math.floor(from / ROTATION_TTLS) + 1) * ROTATION_TTLS * PERIOD; // a move
          const windows = [T / PERIOD / ROTATION_TTLS - 1, T / PERIOD / ROTATION_TTLS].map((r) =>
            divideAllowances(p, gridAt(p, step), ds, r),
          );
          // each instance's last heartbeat before `t` (phase in [0, interval)), as the SDK applies it
          const heldAt = (i: number, t: number) => {
            const beat = t - 1 - ((((t - 1 - phases[i]!) % INTERVAL) + INTERVAL) % INTERVAL);
            const at = rotationAt(beat, PERIOD, INTERVAL);
            const windowOf = (r: number) => windows[r - (T / PERIOD / ROTATION_TTLS - 1)]!;
            const id = ds[i]!.instanceId;
            if (at.announceInMs !== null && t >= beat + at.announceInMs)
              return windowOf(at.rotation + 1).get(id);
            return windowOf(at.rotation).get(id);
          };
          for (const t of [T - 2 * INTERVAL, T - 1, T, T + 1, T + INTERVAL - 1, T + INTERVAL]) {
            const now = windows[t < T ? 0 : 1]!;
            ds.forEach((d, i) =>
              expect(heldAt(i, t), `${d.instanceId} at T${t - T}`).toEqual(now.get(d.instanceId)),
            );
          }
        },
      ),
    );
  });

  /**
   * A fleet as the controller and the SDK run it: each instance heartbeats once per interval at its
   * own phase and then holds what the division of that moment gives it, in a token bucket that is
   * frozen while it is not admitted (as the SDK's ClassAdmission keeps it); every instance wants
   * more than it is allowed. A heartbeat in the last two intervals before the window moves (core
   * rotationAt) also hears its share of the next window, which it applies at the move. `lost[i]`
   * says which heartbeat instance i loses before each move (1: the one two intervals before, 2: the
   * last one before; 0: none): it hears the move once instead of twice. (Announcing in the last
   * interval only, an instance losing that one heartbeat held the old share past the move while the
   * new window burst, and this property failed — as the idle handover did for an instance losing
   * its one handover heartbeat.) The ramp's level changes at arbitrary moments. Calls per second
   * never exceed what the simulator's checker allows (apps/simulator Invariants): the step's rate
   * plus one burst per admitted instance, at the highest level of the second and the two before it.
   */
  function calledPerSecond(
    p: PoolConfig,
    n: number,
    phases: number[],
    levels: { at: number; level: number }[],
    seconds: number,
    lost: readonly number[] = [],
  ): { calls: number[]; limits: number[] } {
    const INTERVAL = 1000;
    const PERIOD = 5000;
    const TICK = 10;
    const clock = { t: 0, now: () => clock.t };
    const ds = Array.from({ length: n }, (_, i) => ({
      instanceId: `i${String(i).padStart(3, '0')}`,
      demand: { standard: 1e6 },
    }));
    const levelAt = (t: number) => levels.filter((l) => l.at <= t).at(-1)!.level;
    const buckets: (TokenBucket | null)[] = ds.map(() => null);
    const admitted = ds.map(() => false);
    const pending: ({ at: number; mine: ClassAllowance | undefined } | null)[] = ds.map(() => null);
    const calls = Array.from({ length: seconds }, () => 0);
    const limits = Array.from({ length: seconds }, () => 0);
    const hold = (i: number, mine: ClassAllowance | undefined) => {
      if (!mine) {
        if (admitted[i]) buckets[i]!.reset(0, buckets[i]!.capacity);
        admitted[i] = false;
        return;
      }
      if (buckets[i] === null) buckets[i] = new TokenBucket(mine.ratePerSec, mine.burst, clock);
      else buckets[i]!.reset(mine.ratePerSec, mine.burst);
      admitted[i] = true;
    };
    for (let t = 0; t < seconds * 1000; t += TICK) {
      clock.t = t;
      const level = levelAt(t);
      const sec = Math.floor(t / 1000);
      const b = stepBudget(p, { step: 0, level }).standard!;
      limits[sec] = Math.max(limits[sec]!, Math.ceil(b.ratePerSec + admissionLimit(b)));
      // the SDK switches to an announced share once its clock passes the move
      pending.forEach((next, i) => {
        if (next === null || t < next.at) return;
        pending[i] = null;
        hold(i, next.mine);
      });
      ds.forEach((d, i) => {
        if ((t - phases[i]!) % INTERVAL !== 0 || t < phases[i]!) return;
        // as the control plane does: divided per period, the window moves every ROTATION_TTLS periods
        const at = rotationAt(t, PERIOD, INTERVAL);
        if (at.announceInMs !== null && lost[i] === (at.announceInMs <= INTERVAL ? 2 : 1)) return;
        const divide = (rotation: number) =>
          divideAllowances(p, { step: 0, level }, ds, rotation).get(d.instanceId)?.standard;
        hold(i, divide(at.rotation));
        // a later plan replaces a pending announcement
        pending[i] =
          at.announceInMs === null ? null : { at: t + at.announceInMs, mine: divide(at.rotation + 1) };
      });
      ds.forEach((_, i) => {
        if (!admitted[i]) return;
        while (buckets[i]!.tryTake()) calls[sec]! += 1;
      });
    }
    // the checker's limit for a second: the highest of it and the two before
    return { calls, limits: limits.map((_, s) => Math.max(...limits.slice(Math.max(0, s - 2), s + 1))) };
  }

  it('property: no second in which the fleet’s admitted calls exceed the step budget, across level changes and rotations', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 40 }),
        fc.double({ min: 1, max: 60, noNaN: true }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 99 }), { minLength: 40, maxLength: 40 }),
        fc.array(
          fc.record({
            at: fc.integer({ min: 1, max: 59_999 }),
            level: fc.double({ min: 0.01, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 40, maxLength: 40 }),
        (n, rate, conc, phaseTicks, changes, lost) => {
          const p = DEFAULT_POOL('x', 'x');
          p.capacity = { standard: { ratePerSec: rate, concurrency: conc } };
          const levels = [{ at: 0, level: 0.01 }, ...[...changes].sort((a, b) => a.at - b.at)];
          const { calls, limits } = calledPerSecond(
            p,
            n,
            phaseTicks.map((k) => k * 10),
            levels,
            60,
            lost,
          );
          calls.forEach((c, s) => expect(c, `second ${s}`).toBeLessThanOrEqual(limits[s]!));
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 60) },
    );
  });
});
