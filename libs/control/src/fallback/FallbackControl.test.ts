import {
  defaultPoolBody,
  emptyEvidence,
  FakeClock,
  seededRng,
  type FallbackReport,
  type HeartbeatResponse,
  type PoolConfig,
  type ReportedState,
} from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { ControlPlane } from '../ControlPlane.js';
import { createMemoryControlPlane, type MemoryControl } from '../memory/MemoryControlPlane.js';

const TTL = 5000;
const GROUP = 'g';
const DEP = 'dep';
const ID = `${GROUP}:${DEP}`;
const REGIONS = ['eu', 'us', 'ap'];
const regionOf = (i: number) => REGIONS[i % 3]!;
const ids = Array.from({ length: 30 }, (_, i) => `i${i}`);

function setup(pool: Partial<PoolConfig['fallback']> = {}) {
  const clock = new FakeClock(0);
  const body = defaultPoolBody([DEP]);
  const control = createMemoryControlPlane({
    clock,
    rng: seededRng(1),
    heartbeatIntervalMs: 1000,
    heartbeatTtlMs: TTL,
    isolationAfterMs: 2 * TTL,
    pools: [{ id: 'p', ...body, fallback: { ...body.fallback, ratePerSec: 0.3, ...pool } }],
  });
  return { clock, control };
}

const beat = (
  plane: ControlPlane,
  i: number,
  state: ReportedState,
  fallback?: FallbackReport,
): Promise<HeartbeatResponse> =>
  plane.heartbeat({
    instanceId: ids[i]!,
    group: GROUP,
    region: regionOf(i),
    breakers: [
      {
        dependency: DEP,
        state,
        evidence: emptyEvidence(),
        demand: { standard: 1 },
        ...(fallback ? { fallback } : {}),
      },
    ],
  });

async function beatAll(plane: ControlPlane, state: ReportedState) {
  const out: HeartbeatResponse[] = [];
  for (let i = 0; i < ids.length; i++) out.push(await beat(plane, i, state));
  return out;
}

/**
 * The fleet heard from for longer than one table period: the first period's table (computed at the
 * first heartbeat) saw only the instances stored by then.
 */
async function warm(clock: FakeClock, control: MemoryControl) {
  await beatAll(control.plane, 'closed');
  clock.set(TTL / 2);
  await beatAll(control.plane, 'closed');
  clock.set(TTL + 1);
}

/** a breaker driven through OPEN and PROBING (probes succeed) into RAMPING */
async function toRamping(clock: FakeClock, control: MemoryControl) {
  await beatAll(control.plane, 'closed');
  clock.set(TTL + 1);
  await beatAll(control.plane, 'open');
  clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
  for (let round = 0; round < 120 && control.breakers.peek(ID)!.globalState.state !== 'ramping'; round++) {
    await control.plane.tick();
    for (const r of await beatAll(control.plane, 'paused')) {
      const probe = r.breakers[0]!.probe;
      if (probe) await control.plane.probeResult(probe.token, { outcome: 'success', latencyMs: 5 });
    }
    clock.advance(1000);
  }
  expect(control.breakers.peek(ID)!.globalState.state).toBe('ramping');
}

describe('FallbackControl through the ControlPlane (memory ports)', () => {
  it('every plan carries its region share, live count and owners; shares sum to the pool rate', async () => {
    const { clock, control } = setup();
    await warm(clock, control);
    const plans = (await beatAll(control.plane, 'closed')).map((r) => r.breakers[0]!.fallback!);
    const byRegion = new Map<string, { share: number; owners: number; live: number }>();
    plans.forEach((f, i) => {
      const r = byRegion.get(regionOf(i)) ?? {
        share: f.regionShare.ratePerSec,
        owners: 0,
        live: f.regionLive,
      };
      if (f.probeOwner) r.owners += 1;
      byRegion.set(regionOf(i), r);
      expect(f.owners).toBe(2);
    });
    expect([...byRegion.values()].map((r) => [r.owners, r.live])).toEqual([
      [2, 10],
      [2, 10],
      [2, 10],
    ]);
    const total = [...byRegion.values()].reduce((a, r) => a + r.share, 0);
    expect(total).toBeCloseTo(0.3, 12);
  });

  it('follows regionWeights, and owners stay the same from one period to the next', async () => {
    const { clock, control } = setup({ regionWeights: { eu: 2, us: 1, ap: 1 } });
    await warm(clock, control);
    const first = (await beatAll(control.plane, 'closed')).map((r) => r.breakers[0]!.fallback!);
    expect(first[0]!.regionShare.ratePerSec).toBeCloseTo(0.15, 12); // i0 is in eu
    expect(first[1]!.regionShare.ratePerSec).toBeCloseTo(0.075, 12);
    clock.advance(TTL / 2);
    await beatAll(control.plane, 'closed');
    clock.advance(TTL / 2); // a new period: the table is computed again from the live rows
    const second = (await beatAll(control.plane, 'closed')).map((r) => r.breakers[0]!.fallback!);
    expect(second.map((f) => f.probeOwner)).toEqual(first.map((f) => f.probeOwner));
  });

  it('announces region.fallback once per region and spell, with its duration, however many instances report it', async () => {
    const { clock, control } = setup();
    await beatAll(control.plane, 'closed');
    clock.set(200_000);
    const report = (durationMs: number): FallbackReport => ({
      durationMs,
      attempts: 3,
      probes: 1,
      probeSuccesses: 1,
    });
    for (let i = 0; i < ids.length; i++)
      await beat(control.plane, i, 'closed', report(120_000 - (i % 4) * 500));
    const fallback = control.events.events.filter((e) => e.type === 'region.fallback');
    expect(fallback.map((e) => e.data.region).sort()).toEqual(['ap', 'eu', 'us']);
    expect(fallback[0]!.data.durationMs).toBe(120_000);
    // a blip shorter than a lease TTL is not an alert
    clock.set(300_000);
    await beat(control.plane, 0, 'closed', report(TTL - 1));
    expect(control.events.events.filter((e) => e.type === 'region.fallback')).toHaveLength(3);
    // a later spell of the same region is announced again
    clock.set(600_000);
    await beat(control.plane, 0, 'closed', report(30_000));
    expect(control.events.events.filter((e) => e.type === 'region.fallback')).toHaveLength(4);
  });

  it('for one TTL after a restart grants no allowance beyond what the instance reports holding (T−1 / T)', async () => {
    const { clock, control } = setup();
    await toRamping(clock, control);
    const before = (await beatAll(control.plane, 'closed')).map((r) => r.breakers[0]!.allowance!.classes);
    expect(before.some((c) => Object.keys(c).length > 0)).toBe(true);
    // a controller process starting now on the same stores
    clock.advance(60_000);
    const start = clock.now();
    const { plane: _old, events, ...stores } = control;
    const restarted = new ControlPlane(
      { ...stores, events, clock, rng: seededRng(2) },
      control.plane.settings,
    );
    const held = {
      durationMs: 60_000,
      attempts: 0,
      probes: 0,
      probeSuccesses: 0,
      holding: { standard: 0.001 },
    };
    const none = { durationMs: 60_000, attempts: 0, probes: 0, probeSuccesses: 0 };
    const resumed = [];
    for (let i = 0; i < ids.length; i++)
      resumed.push((await beat(restarted, i, 'fallback', i % 2 ? held : none)).breakers[0]!);
    expect(resumed.every((p) => p.global.state === 'ramping')).toBe(true);
    resumed.forEach((p, i) => {
      const classes = p.allowance!.classes;
      if (i % 2 === 0) expect(classes).toEqual({});
      else for (const a of Object.values(classes)) expect(a.ratePerSec).toBeLessThanOrEqual(0.001);
    });
    clock.set(start + TTL - 1);
    const still = await beat(restarted, 0, 'closed');
    expect(still.breakers[0]!.allowance!.classes).toEqual({});
    clock.set(start + TTL);
    const after = [];
    for (let i = 0; i < ids.length; i++) after.push((await beat(restarted, i, 'closed')).breakers[0]!);
    expect(after.some((p) => Object.values(p.allowance!.classes).some((a) => a.ratePerSec > 0.001))).toBe(
      true,
    );
  });

  it('serves an instance that never lost control (another replica had it) from the stored division while a new process resumes', async () => {
    const { clock, control } = setup();
    await toRamping(clock, control);
    const before = (await beatAll(control.plane, 'closed')).map((r) => r.breakers[0]!.allowance!.classes);
    expect(before.some((c) => Object.keys(c).length > 0)).toBe(true);
    // a second process joining the running one (a rolling restart): same stores, same period
    const { plane: _running, events, ...stores } = control;
    const joined = new ControlPlane({ ...stores, events, clock, rng: seededRng(3) }, control.plane.settings);
    const after = (await beatAll(joined, 'closed')).map((r) => r.breakers[0]!.allowance!.classes);
    expect(after).toEqual(before);
  });

  it('while a new process resumes, probe tokens go to designated instances that never lost control, not to ones back from FALLBACK', async () => {
    const probing = async () => {
      const { clock, control } = setup();
      await beatAll(control.plane, 'closed');
      clock.set(TTL + 1);
      await beatAll(control.plane, 'open');
      clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
      await control.plane.tick();
      expect(control.breakers.peek(ID)!.globalState.state).toBe('probing');
      const { plane: _first, events, ...stores } = control;
      return new ControlPlane({ ...stores, events, clock, rng: seededRng(4) }, control.plane.settings);
    };
    const spell = { durationMs: 60_000, attempts: 0, probes: 0, probeSuccesses: 0 };
    const tokens = async (plane: ControlPlane, report?: typeof spell) => {
      let n = 0;
      for (let i = 0; i < ids.length; i++)
        if ((await beat(plane, i, 'paused', report)).breakers[0]!.probe) n++;
      return n;
    };
    expect(await tokens(await probing(), spell)).toBe(0); // back from FALLBACK: they hold nothing
    expect(await tokens(await probing())).toBeGreaterThan(0); // a rolling restart: probing goes on
  });
});
