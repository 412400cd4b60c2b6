// Region-scoped breakers on the memory ports (the simulator's home): which breaker opens, whose
// plans follow it, and that two regions recovering at once draw on one pool probe budget.
import {
  currentLevel,
  defaultPoolBody,
  emptyEvidence,
  FakeClock,
  regionSlice,
  seededRng,
  stepBudget,
  type BreakerPlan,
  type ReportedState,
} from '@recloser/core';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryControlPlane } from '../memory/MemoryControlPlane.js';
import { REGION_EVALUATION_MS, REGION_VIEW_MS } from './RegionBreakers.js';

const TTL = 5000;
const GROUP = 'g';
const DEP = 'dep';
const REGIONS = ['a', 'b', 'c', 'd', 'e'];
const PER_REGION = 3;

function setup(concurrency = 1) {
  const clock = new FakeClock(0);
  const body = defaultPoolBody([DEP]);
  const control = createMemoryControlPlane({
    clock,
    rng: seededRng(1),
    heartbeatIntervalMs: 1000,
    heartbeatTtlMs: TTL,
    isolationAfterMs: 2 * TTL,
    pools: [{ id: 'p', ...body, probe: { ...body.probe, concurrency, ratePerSec: 100 } }],
  });
  /** one heartbeat from every instance; instances of `failing` regions report locally open */
  const beatAll = async (
    failing: string[],
    state: (region: string) => ReportedState = () => 'closed',
    demand = 1,
  ) => {
    const plans = new Map<
      string,
      { region: string; state: string; probe: boolean; breakerId: string; shift: BreakerPlan['shift'] }
    >();
    for (const region of REGIONS)
      for (let i = 0; i < PER_REGION; i++) {
        const instanceId = `${region}-${i}`;
        const res = await control.plane.heartbeat({
          instanceId,
          group: GROUP,
          region,
          breakers: [
            {
              dependency: DEP,
              state: failing.includes(region) ? 'open' : state(region),
              evidence: emptyEvidence(),
              demand: { standard: demand },
            },
          ],
        });
        const plan = res.breakers[0]!;
        plans.set(instanceId, {
          region,
          state: plan.global.state,
          probe: plan.probe !== null,
          breakerId: plan.breakerId,
          shift: plan.shift,
        });
      }
    return plans;
  };
  return { clock, control, beatAll };
}

const groupState = (c: ReturnType<typeof setup>['control']) =>
  c.breakers.peek(`${GROUP}:${DEP}`)?.globalState.state;
const regionState = (c: ReturnType<typeof setup>['control'], r: string) =>
  c.breakers.peek(`${GROUP}:${DEP}@region:${r}`)?.globalState.state;

describe('region-scoped breakers (memory ports)', () => {
  it('a region at quorum opens its own breaker after the learning period; only its instances pause', async () => {
    const { clock, control, beatAll } = setup();
    await beatAll([]);
    clock.set(TTL / 2);
    await beatAll(['a']);
    expect(regionState(control, 'a')).toBeUndefined(); // learning: nothing opens
    clock.set(TTL + 1);
    const plans = await beatAll(['a']);
    expect(regionState(control, 'a')).toBe('open');
    expect(groupState(control)).toBe('closed');
    for (const p of plans.values())
      expect([p.region, p.state]).toEqual([p.region, p.region === 'a' ? 'open' : 'closed']);
    // a's plans carry its shift plan: its deficit may go to the healthy regions, within their headroom
    for (const p of plans.values()) {
      if (p.region !== 'a') expect(p.shift).toBeUndefined();
      else {
        expect(p.shift?.mode).toBe('shifting');
        expect(p.shift?.source).toBe('a');
        expect(p.shift!.receivers.length).toBeGreaterThan(0);
        for (const r of p.shift!.receivers) {
          expect(r.region).not.toBe('a');
          expect(r.ratePerSec).toBeGreaterThan(0);
        }
      }
    }
    expect(REGIONS.slice(1).map((r) => regionState(control, r))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // recorded like any other transition, with the regional figures
    const opened = control.breakers.log.find((t) => t.breakerId === `${GROUP}:${DEP}@region:a`)!;
    expect([opened.from, opened.to, opened.actor]).toEqual(['closed', 'open', 'quorum']);
    expect((opened.figures as { regional: { region: string } }).regional.region).toBe('a');
  });

  it("a region breaker's shift plan is planned from the group breaker the heartbeat holds (no store lookup)", async () => {
    const { clock, control, beatAll } = setup();
    await beatAll([]);
    clock.set(TTL / 2);
    await beatAll(['a']);
    clock.set(TTL + 1);
    await beatAll(['a']);
    expect(regionState(control, 'a')).toBe('open');
    const find = vi.spyOn(control.breakers, 'find');
    clock.advance(REGION_VIEW_MS + 1); // past the cached shift plan: planned again
    const plans = await beatAll(['a']);
    expect(plans.get('a-0')?.shift?.mode).toBe('shifting');
    expect(find).not.toHaveBeenCalled();
  });

  it('a group with one region never opens a region breaker: its quorum is the group’s', async () => {
    const clock = new FakeClock(0);
    const control = createMemoryControlPlane({
      clock,
      rng: seededRng(1),
      heartbeatIntervalMs: 1000,
      heartbeatTtlMs: TTL,
      isolationAfterMs: 2 * TTL,
    });
    for (const at of [0, TTL + 1]) {
      clock.set(at);
      for (const id of ['x', 'y', 'z'])
        await control.plane.heartbeat({
          instanceId: id,
          group: GROUP,
          region: 'only',
          breakers: [
            {
              dependency: DEP,
              state: at > 0 ? 'open' : 'closed',
              evidence: emptyEvidence(),
              demand: { standard: 1 },
            },
          ],
        });
    }
    expect(groupState(control)).toBe('open');
    expect(await control.breakers.regionBreakers(GROUP, DEP)).toEqual([]);
  });

  it('two regions recovering at once share the pool’s one probe token', async () => {
    const { clock, control, beatAll } = setup(1);
    await beatAll([]);
    clock.set(TTL / 2);
    await beatAll([]); // the whole fleet live when the learning period ends
    clock.set(TTL + 1);
    await beatAll(['a', 'b']);
    // regions are judged at most every REGION_EVALUATION_MS: b, at quorum after a, opens at the next
    clock.advance(REGION_EVALUATION_MS + 1);
    await beatAll(['a', 'b']);
    expect([regionState(control, 'a'), regionState(control, 'b'), groupState(control)]).toEqual([
      'open',
      'open',
      'closed',
    ]);
    // past any cooldown: both regions probe
    clock.advance(10 * 60_000);
    await control.plane.tick();
    expect([regionState(control, 'a'), regionState(control, 'b')]).toEqual(['probing', 'probing']);
    const paused = (r: string) => (r === 'a' || r === 'b' ? 'paused' : 'closed');
    for (let round = 0; round < 3; round++) {
      const plans = await beatAll([], paused);
      const tokens = [...plans.values()].filter((p) => p.probe);
      expect(tokens.length).toBeLessThanOrEqual(1);
      expect(tokens.every((p) => p.region === 'a' || p.region === 'b')).toBe(true);
      for (const p of plans.values())
        expect([p.region, p.state]).toEqual([
          p.region,
          p.region === 'a' || p.region === 'b' ? 'probing' : 'closed',
        ]);
      clock.advance(500);
    }
    expect((await beatAll([], paused)).size).toBe(REGIONS.length * PER_REGION);
    // exactly one token was granted over both regions
    const granted = control.events.events.filter((e) => e.type === 'probe.granted');
    expect(granted.length).toBe(1);
  });

  it('a shift’s life on the stored state: started, a receiver throttled, reversed once the region closes, ended', async () => {
    const { clock, control, beatAll } = setup();
    await beatAll([], undefined, 2);
    clock.set(TTL / 2);
    await beatAll(['a'], undefined, 2);
    clock.set(TTL + 1);
    await beatAll(['a'], undefined, 2);
    expect(regionState(control, 'a')).toBe('open');
    const shiftEvents = () => control.events.events.filter((e) => e.type === 'region.shift');
    expect(shiftEvents().map((e) => e.data.phase)).toEqual(['started']);
    expect(shiftEvents()[0]!.breakerId).toBe(`${GROUP}:${DEP}@region:a`);

    // an instance of a reports moving far more into b than the plan allows: b is throttled, once
    const rogue = () =>
      control.plane.heartbeat({
        instanceId: 'a-router',
        group: GROUP,
        region: 'a',
        breakers: [{ dependency: DEP, state: 'closed', evidence: emptyEvidence(), routed: { b: 10_000 } }],
      });
    for (let i = 0; i < 3; i++) {
      clock.advance(REGION_VIEW_MS + 1);
      await rogue();
      await beatAll(['a'], undefined, 2);
    }
    const throttled = control.events.events.filter((e) => e.type === 'region.shift_throttled');
    expect(throttled.map((e) => e.data.region)).toEqual(['b']);
    expect(throttled[0]!.data.receivedPerSec).toBe(10_000);

    // the region is closed (an operator here); its instances' heartbeats step the reversal to its end
    await control.plane.operatorAction(`${GROUP}:${DEP}@region:a`, 'force_close', 'test: region healed');
    expect(regionState(control, 'a')).toBe('closed');
    for (let i = 0; i < 40 && shiftEvents().length < 3; i++) {
      clock.advance(2600); // every row stays live (TTL 5 s); the plan steps every other round
      await beatAll([], undefined, 2);
    }
    expect(shiftEvents().map((e) => e.data.phase)).toEqual(['started', 'reversed', 'ended']);
    // and no shift in any plan once the region follows the group again
    for (const p of (await beatAll([], undefined, 2)).values()) expect(p.shift).toBeUndefined();
  });

  it("a ramping region breaker divides its region's slice of the pool's capacity, not the whole pool's", async () => {
    const clock = new FakeClock(0);
    const body = defaultPoolBody([DEP]);
    const pool = {
      id: 'p',
      ...body,
      capacity: { standard: { ratePerSec: 300, concurrency: 60 } },
      ramp: { ...body.ramp, classOrder: ['standard'] },
      probe: { ...body.probe, concurrency: 1, ratePerSec: 100, probesToPass: 1 },
    };
    const control = createMemoryControlPlane({
      clock,
      rng: seededRng(1),
      heartbeatIntervalMs: 1000,
      heartbeatTtlMs: TTL,
      isolationAfterMs: 2 * TTL,
      pools: [pool],
    });
    // a's instances want far more than any step gives them: the division is bound by its budget
    const beat = (region: string, i: number, state: ReportedState) =>
      control.plane.heartbeat({
        instanceId: `${region}-${i}`,
        group: GROUP,
        region,
        breakers: [
          {
            dependency: DEP,
            state,
            evidence: emptyEvidence(),
            demand: { standard: region === 'a' ? 1000 : 1 },
          },
        ],
      });
    const beatAll = async (stateOf: (region: string) => ReportedState) => {
      const plans: (BreakerPlan & { region: string })[] = [];
      for (const region of REGIONS)
        for (let i = 0; i < PER_REGION; i++)
          plans.push({ ...(await beat(region, i, stateOf(region))).breakers[0]!, region });
      return plans;
    };
    await beatAll(() => 'closed');
    clock.set(TTL / 2);
    await beatAll(() => 'closed');
    clock.set(TTL + 1);
    await beatAll((r) => (r === 'a' ? 'open' : 'closed'));
    expect(regionState(control, 'a')).toBe('open');
    const id = `${GROUP}:${DEP}@region:a`;
    clock.set(control.breakers.peek(id)!.globalState.cooldownUntil! + 1);
    await control.plane.tick();
    const paused = (r: string) => (r === 'a' ? 'paused' : 'closed');
    const token = (await beatAll(paused)).find((p) => p.probe)!.probe!.token;
    await control.plane.probeResult(token, { outcome: 'success', latencyMs: 20 });
    expect(regionState(control, 'a')).toBe('ramping');

    const plans = (await beatAll(paused)).filter((p) => p.region === 'a');
    const given = plans.reduce((sum, p) => sum + (p.allowance?.classes.standard?.ratePerSec ?? 0), 0);
    const g = control.breakers.peek(id)!.globalState;
    const level = currentLevel(g, pool)!;
    // a is 3 of the group's 15 live instances: a fifth of the pool's 300/s at this level
    const slice = stepBudget(regionSlice(pool, PER_REGION / (PER_REGION * REGIONS.length)), {
      step: g.step!,
      level,
    }).standard!.ratePerSec;
    expect(slice).toBeCloseTo(60 * level, 9);
    expect(given).toBeGreaterThan(0);
    expect(given).toBeCloseTo(slice, 6);
    // the other regions follow the group breaker: no allowance, no limit
    for (const p of (await beatAll(paused)).filter((x) => x.region !== 'a')) expect(p.allowance).toBeNull();
  });
});
