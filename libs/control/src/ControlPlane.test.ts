import {
  currentLevel,
  defaultPoolBody,
  designateProbers,
  divideAllowances,
  ROTATION_TTLS,
  type BreakerPlan,
  emptyEvidence,
  FakeClock,
  seededRng,
  type PoolConfig,
  type ReportedState,
} from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ControlPlane } from './ControlPlane.js';
import type { PresenceStore } from './ports.js';
import { createMemoryControlPlane, type MemoryControl } from './memory/MemoryControlPlane.js';

const TTL = 5000;
const GROUP = 'g';
const DEP = 'dep';
const ID = `${GROUP}:${DEP}`;

function setup(
  start = 0,
  extra: {
    maxBreakersPerGroup?: number;
    maxInstancesPerGroup?: number;
    breakerViewMs?: number;
    pools?: PoolConfig[];
  } = {},
) {
  const clock = new FakeClock(start);
  const control = createMemoryControlPlane({
    clock,
    rng: seededRng(1),
    heartbeatIntervalMs: 1000,
    heartbeatTtlMs: TTL,
    isolationAfterMs: 2 * TTL,
    ...extra,
  });
  return { clock, control };
}

const beat = (
  plane: ControlPlane,
  instanceId: string,
  state: ReportedState,
  demand: Record<string, number> = { standard: 1 },
) =>
  plane.heartbeat({
    instanceId,
    group: GROUP,
    region: 'eu-west',
    breakers: [{ dependency: DEP, state, evidence: emptyEvidence(), demand }],
  });

const stateOf = (control: MemoryControl) => control.breakers.peek(ID)?.globalState.state;

describe('ControlPlane: the learning period (one heartbeat TTL)', () => {
  it('opens no quorum before one TTL after the group was first seen: closed at T-1 ms, open at T+1 ms', async () => {
    const { clock, control } = setup(0);
    await beat(control.plane, 'a', 'closed'); // the group is first seen at 0
    clock.set(TTL / 2);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'open');
    clock.set(TTL - 1);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'open');
    expect(stateOf(control)).toBe('closed');
    clock.set(TTL + 1);
    await beat(control.plane, 'a', 'open');
    expect(stateOf(control)).toBe('open');
  });

  it('learns again for one TTL after a restart, even for a group seen long before', async () => {
    const { clock, control } = setup(0);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'closed');
    clock.set(60_000);
    // a controller process starting now, on the same stores (a restart, or a new replica)
    const { plane: _old, events, ...stores } = control;
    const restarted = new ControlPlane(
      { ...stores, events, clock, rng: seededRng(2) },
      control.plane.settings,
    );
    clock.set(60_000 + TTL - 1);
    for (const i of ['a', 'b', 'c']) await beat(restarted, i, 'open');
    expect(await restarted.evaluateAll()).toBe(0);
    expect(stateOf(control)).toBe('closed');
    clock.set(60_000 + TTL + 1);
    await beat(restarted, 'a', 'open');
    expect(stateOf(control)).toBe('open');
  });

  it('property: whatever the quorum, nothing opens while learning, and the fleet opens right after it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 0, max: TTL - 2 }),
        async (fleet, firstOpenAt) => {
          const { clock, control } = setup(0);
          const ids = Array.from({ length: fleet }, (_, i) => `i${i}`);
          for (const i of ids) await beat(control.plane, i, 'closed');
          clock.set(firstOpenAt);
          for (const i of ids) await beat(control.plane, i, 'open');
          clock.set(TTL - 1);
          await control.plane.evaluateAll();
          if (stateOf(control) !== 'closed') return false;
          clock.set(TTL + 1);
          for (const i of ids) await beat(control.plane, i, 'open');
          return stateOf(control) === 'open';
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('ControlPlane: bounds', () => {
  it('refuses a heartbeat that would give its group more breakers than allowed, creating none of them', async () => {
    const { control } = setup(0, { maxBreakersPerGroup: 2 });
    const hb = (...deps: string[]) =>
      control.plane.heartbeat({
        instanceId: 'a',
        group: GROUP,
        region: 'eu-west',
        breakers: deps.map((dependency) => ({
          dependency,
          state: 'closed' as const,
          evidence: emptyEvidence(),
        })),
      });
    await expect(hb('x', 'y', 'z')).rejects.toMatchObject({ kind: 'conflict' });
    expect(control.breakers.peek(`${GROUP}:x`)).toBeUndefined();
    expect((await hb('x', 'y')).breakers).toHaveLength(2);
    const refused = await hb('x', 'z').catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'conflict' });
    expect((refused as Error).message).toMatch(/^breakers: group "g" has 2 breakers and may have at most 2/);
    expect((await hb('y', 'x')).breakers).toHaveLength(2);
  });

  it('refuses a new instance id once its group has as many instances as allowed, and keeps serving the stored ones', async () => {
    const { control } = setup(0, { maxInstancesPerGroup: 3 });
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'closed');
    const refused = await beat(control.plane, 'd', 'closed').catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'conflict' });
    expect((refused as Error).message).toMatch(
      /^instanceId: group "g" has 3 instances and may have at most 3/,
    );
    expect(control.presence.instances.has(`${GROUP}\u0000d`)).toBe(false);
    // a stored instance is served, through this process or a fresh one on the same stores
    expect((await beat(control.plane, 'a', 'closed')).breakers).toHaveLength(1);
    const { plane: _old, ...stores } = control;
    const restarted = new ControlPlane(
      { ...stores, clock: control.plane['ports'].clock, rng: seededRng(3) },
      control.plane.settings,
    );
    expect((await beat(restarted, 'b', 'closed')).breakers).toHaveLength(1);
    await expect(beat(restarted, 'e', 'closed')).rejects.toMatchObject({ kind: 'conflict' });
    // another group is not limited by this one
    await expect(
      control.plane.heartbeat({ instanceId: 'd', group: 'other', region: 'eu-west', breakers: [] }),
    ).resolves.toBeTruthy();
  });
});

describe('ControlPlane: probe leases', () => {
  it('a lease asked for right after the cooldown starts PROBING without waiting for the tick (T-1 ms: retry later)', async () => {
    const { clock, control } = setup(0);
    const ids = ['a', 'b', 'c'];
    for (const i of ids) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ids) await beat(control.plane, i, 'open');
    const until = control.breakers.peek(ID)!.globalState.cooldownUntil!;
    const ask = () => control.plane.leaseProbe({ instanceId: 'a', group: GROUP, dependency: DEP });
    clock.set(until - 1);
    await beat(control.plane, 'a', 'paused'); // a live instance of the group asks
    await expect(ask()).rejects.toMatchObject({ kind: 'retry_later', retryAfterMs: 1 });
    expect(stateOf(control)).toBe('open');
    clock.set(until);
    const grant = await ask();
    expect(grant.fencing).toBeGreaterThan(0);
    expect(stateOf(control)).toBe('probing');
  });
});

/** Instances `ids` report closed, then open (a quorum), `ids[0]` probes once: the breaker RAMPS (probesToPass 1). */
async function rampWith(
  clock: { set(t: number): void },
  control: ReturnType<typeof setup>['control'],
  ids: string[],
) {
  for (const i of ids) await beat(control.plane, i, 'closed');
  clock.set(TTL + 1);
  for (const i of ids) await beat(control.plane, i, 'open');
  clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
  await beat(control.plane, ids[0]!, 'paused');
  const grant = await control.plane.leaseProbe({ instanceId: ids[0]!, group: GROUP, dependency: DEP });
  await control.plane.probeResult(grant.token, { outcome: 'success', latencyMs: 20 });
  expect(stateOf(control)).toBe('ramping');
}

describe('ControlPlane: routine heartbeats while RAMPING', () => {
  /** a breaker RAMPING with instances a, b, c; `through` lists, per write asked of presence, whether it was decisive */
  async function ramping(breakerViewMs?: number) {
    const body = defaultPoolBody([DEP]);
    const { clock, control } = setup(0, {
      pools: [{ id: 'p', ...body, probe: { ...body.probe, probesToPass: 1 } }],
      ...(breakerViewMs !== undefined ? { breakerViewMs } : {}),
    });
    const ids = ['a', 'b', 'c'];
    await rampWith(clock, control, ids);

    const through: boolean[] = [];
    // the memory store writes every report at once; what matters here is what the plane asks of it
    const presence: PresenceStore = control.presence;
    const record = presence.record.bind(presence);
    presence.record = (hb, verdicts, now, routine) => {
      through.push(!routine);
      return record(hb, verdicts, now, routine);
    };
    return { clock, control, through };
  }

  it('writes nothing for an unchanged report while its row is fresh, a changed demand behind, a changed state or an open one through', async () => {
    const { clock, control, through } = await ramping();
    await beat(control.plane, 'b', 'closed'); // open → closed: a change, written through
    await beat(control.plane, 'b', 'closed'); // unchanged, row fresh: not written
    clock.advance(200); // within the view (BREAKER_VIEW_MS) and the refresh window (TTL/4)
    await beat(control.plane, 'b', 'closed', { standard: 3 }); // a new demand (the division reads it): behind
    await beat(control.plane, 'b', 'closed', { standard: 3 }); // unchanged again: not written
    await beat(control.plane, 'b', 'closed', { standard: 3, batch: 0 }); // the same positive demand: not written
    await beat(control.plane, 'b', 'open'); // locally open: through
    expect(through).toEqual([true, false, true]);
    expect(stateOf(control)).toBe('ramping');
  });

  it('rewrites an unchanged report once its row is a quarter TTL old: not at T-1 ms, behind at T', async () => {
    const { clock, control, through } = await ramping(10 * TTL);
    await beat(control.plane, 'b', 'closed'); // written through at t0
    const t0 = clock.now();
    clock.set(t0 + TTL / 4 - 1);
    await beat(control.plane, 'b', 'closed');
    expect(through).toEqual([true]);
    clock.set(t0 + TTL / 4);
    await beat(control.plane, 'b', 'closed');
    expect(through).toEqual([true, false]);
    // and the stored row carries the demand the division divides by
    const live = await control.presence.liveDemand(control.breakers.peek(ID)!.id, clock.now());
    expect(live.find((l) => l.instanceId === 'b')?.demand).toEqual({ standard: 1 });
  });

  it('property: whatever the demands reported, the row live for the division carries the last one', async () => {
    const demand = fc.record({
      standard: fc.integer({ min: 0, max: 3 }),
      batch: fc.integer({ min: 0, max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(demand, fc.integer({ min: 0, max: 400 })), { minLength: 1, maxLength: 12 }),
        async (beats) => {
          const { clock, control } = await ramping(10 * TTL);
          for (const [d, gap] of beats) {
            clock.advance(gap);
            await beat(control.plane, 'b', 'closed', d);
          }
          const last = beats.at(-1)![0];
          const positive = Object.fromEntries(Object.entries(last).filter(([, v]) => v > 0));
          const live = await control.presence.liveDemand(control.breakers.peek(ID)!.id, clock.now());
          expect(live.find((l) => l.instanceId === 'b')?.demand).toEqual(positive);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('ControlPlane: a moving admission window is announced ahead (no idle handover)', () => {
  it('tells a heartbeat in the two intervals before a move its next share and when: 2 I − 1 ms ahead, 500 ms ahead; none 2 I + 1 ms ahead or after', async () => {
    const body = defaultPoolBody([DEP]);
    // one call at the first steps: one instance of the three admitted per window
    const pool: PoolConfig = {
      id: 'p',
      ...body,
      capacity: { standard: { ratePerSec: 10, concurrency: 2 } },
      probe: { ...body.probe, probesToPass: 1 },
    };
    const { clock, control } = setup(0, { pools: [pool] });
    const ids = ['a', 'b', 'c'];
    await rampWith(clock, control, ids);

    const WINDOW = ROTATION_TTLS * TTL;
    const T = (Math.floor(clock.now() / WINDOW) + 2) * WINDOW; // a move at least one window ahead
    const fleet = ids.map((instanceId) => ({ instanceId, demand: { standard: 1 } }));
    const g = control.breakers.peek(ID)!.globalState;
    const at = { step: g.step!, level: currentLevel(g, pool)! };
    const shareOf = (id: string, rotation: number) =>
      divideAllowances(pool, at, fleet, rotation).get(id) ?? {};
    const r = T / WINDOW - 1;
    // the one-call first step admits one of the three per window: the move swaps who it is
    expect(ids.filter((i) => shareOf(i, r).standard).length).toBe(1);
    expect(ids.filter((i) => shareOf(i, r + 1).standard)).not.toEqual(
      ids.filter((i) => shareOf(i, r).standard),
    );
    const plans = async (t: number) => {
      clock.set(t);
      const out = new Map<string, BreakerPlan['allowance']>();
      for (const i of ids) out.set(i, (await beat(control.plane, i, 'closed')).breakers[0]!.allowance);
      return out;
    };

    await plans(T - TTL - 1000); // every row live before the period that announces is divided
    for (const [i, a] of await plans(T - 2 * 1000 - 1)) {
      expect(a!.classes, i).toEqual(shareOf(i, r));
      expect(a!.next, i).toBeUndefined();
    }
    for (const t of [T - 2 * 1000, T - 500]) {
      for (const [i, a] of await plans(t)) {
        expect(a!.classes, i).toEqual(shareOf(i, r));
        // an instance admitted in neither window is told nothing new
        if (!shareOf(i, r).standard && !shareOf(i, r + 1).standard) expect(a!.next, i).toBeUndefined();
        else expect(a!.next, i).toEqual({ inMs: T - t, classes: shareOf(i, r + 1) });
      }
    }
    for (const [i, a] of await plans(T + 1)) {
      expect(a!.classes, i).toEqual(shareOf(i, r + 1)); // what was announced
      expect(a!.next, i).toBeUndefined();
    }
  });
});

describe('ControlPlane: liveness of a lease asker', () => {
  it('knows an instance it stored within the TTL is live without a read, and refuses it once the TTL has passed', async () => {
    const body = defaultPoolBody([DEP]);
    const { clock, control } = setup(0, {
      pools: [{ id: 'p', ...body, probe: { ...body.probe, leases: 'live' } }],
    });
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'open');
    clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
    await control.plane.tick();
    expect(stateOf(control)).toBe('probing');
    const presence: PresenceStore = control.presence;
    const isLive = presence.isLive.bind(presence);
    let reads = 0;
    presence.isLive = (...args) => {
      reads += 1;
      return isLive(...args);
    };
    await beat(control.plane, 'a', 'paused');
    const heardAt = clock.now();
    const ask = () => control.plane.leaseProbe({ instanceId: 'a', group: GROUP, dependency: DEP });
    clock.set(heardAt + TTL - 1);
    await expect(ask()).resolves.toMatchObject({ fencing: expect.any(Number) });
    expect(reads).toBe(0);
    clock.set(heardAt + TTL);
    await expect(ask()).rejects.toMatchObject({ kind: 'conflict' });
    expect(reads, 'past the TTL the store is asked').toBe(1);
  });
});

describe('ControlPlane: probe refusals', () => {
  it('leases a token asked for on the lease endpoint to designated probers only, unless the pool says any live instance', async () => {
    for (const leases of ['designated', 'live'] as const) {
      const body = defaultPoolBody([DEP]);
      const { clock, control } = setup(0, {
        pools: [{ id: 'p', ...body, probe: { ...body.probe, concurrency: 2, ratePerSec: 10, leases } }],
      });
      const fleet = ['a', 'b', 'c', 'd', 'e'];
      for (const i of fleet) await beat(control.plane, i, 'closed');
      clock.set(TTL + 1);
      for (const i of fleet) await beat(control.plane, i, 'open');
      const cooldownUntil = control.breakers.peek(ID)!.globalState.cooldownUntil!;
      clock.set(cooldownUntil - 1);
      for (const i of fleet) await beat(control.plane, i, 'open'); // all live when probing starts
      clock.set(cooldownUntil);
      await control.plane.tick();
      const { epoch } = control.breakers.peek(ID)!.globalState;
      const candidates = fleet.map((instanceId) => ({ instanceId, live: true, demand: 1 }));
      const probers = designateProbers(candidates, 2, epoch);
      const other = fleet.find((i) => !probers.includes(i))!;
      const ask = (i: string) => control.plane.leaseProbe({ instanceId: i, group: GROUP, dependency: DEP });
      if (leases === 'designated') {
        await expect(ask(other)).rejects.toMatchObject({
          kind: 'conflict',
          extra: { reason: 'not_designated' },
        });
        for (const prober of probers) expect((await ask(prober)).token).toBeTruthy();
      } else {
        expect((await ask(other)).token).toBeTruthy();
      }
    }
  });

  it('announces a refusal once per breaker, epoch and reason, however often it repeats, and forgets it when probing ends', async () => {
    // any live instance may ask here, so the refusals come from the budget
    const body = defaultPoolBody([DEP]);
    const { clock, control } = setup(0, {
      pools: [{ id: 'p', ...body, probe: { ...body.probe, leases: 'live' } }],
    });
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'open');
    clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'paused');
    const ask = (i: string) => control.plane.leaseProbe({ instanceId: i, group: GROUP, dependency: DEP });
    await ask('a'); // the default budget: one token
    for (const i of ['b', 'c', 'b', 'c']) await expect(ask(i)).rejects.toMatchObject({ kind: 'retry_later' });
    const denied = () => control.events.events.filter((e) => e.type === 'probe.denied');
    expect(denied()).toHaveLength(1);
    expect(await control.watches.watched()).toContain(ID);
    await control.plane.operatorAction(ID, 'force_open', 'stop probing');
    expect(await control.watches.watched()).not.toContain(ID);
  });
});

describe('ControlPlane: probe results', () => {
  it('answers a token of another group exactly as an unknown token, and leaves it valid for its holder', async () => {
    const { clock, control } = setup(0);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ['a', 'b', 'c']) await beat(control.plane, i, 'open');
    clock.set(control.breakers.peek(ID)!.globalState.cooldownUntil!);
    await beat(control.plane, 'a', 'paused');
    const grant = await control.plane.leaseProbe({ instanceId: 'a', group: GROUP, dependency: DEP });
    const foreign = await control.plane
      .probeResult(grant.token, { outcome: 'success', latencyMs: 5 }, () => {
        throw new Error('forbidden');
      })
      .catch((e: unknown) => e);
    const unknown = await control.plane
      .probeResult('no-such-token', { outcome: 'success', latencyMs: 5 })
      .catch((e: unknown) => e);
    expect(foreign).toMatchObject({ kind: 'conflict' });
    expect((foreign as Error).message).toBe((unknown as Error).message);
    expect(await control.leases.check(grant.token)).not.toBeNull();
  });
});

describe('ControlPlane: the event seam', () => {
  it('announces each committed transition once, in order, and releases probe tokens when PROBING ends', async () => {
    const { clock, control } = setup(0);
    const ids = ['a', 'b', 'c', 'd'];
    for (const i of ids) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ids) await beat(control.plane, i, 'open');
    expect(stateOf(control)).toBe('open');
    clock.advance(2 * 30_000);
    await control.plane.tick();
    expect(stateOf(control)).toBe('probing');
    const plans = await Promise.all(ids.map((i) => beat(control.plane, i, 'paused')));
    expect(plans.filter((p) => p.breakers[0]!.probe !== null)).toHaveLength(1);
    expect(control.leases.live()).toBe(1);
    await control.plane.operatorAction(ID, 'force_open', 'stop probing');
    // the control layer's own consumer freed the stale token's slot
    expect(control.leases.live()).toBe(0);
    const transitions = control.events.events.filter((e) => e.type === 'breaker.transition');
    expect(transitions.map((e) => `${e.data.from}->${e.data.to}`)).toEqual([
      'closed->open',
      'open->probing',
      'probing->open',
    ]);
    expect(new Set(control.events.events.map((e) => e.id)).size).toBe(control.events.events.length);
    expect(control.events.events.some((e) => e.type === 'probe.granted')).toBe(true);
  });

  it('hands a granted probe token to its holder in the plan even when its announcement fails', async () => {
    const warnings: string[] = [];
    const clock = new FakeClock(0);
    const control = createMemoryControlPlane({
      clock,
      rng: seededRng(1),
      heartbeatIntervalMs: 1000,
      heartbeatTtlMs: TTL,
      isolationAfterMs: 2 * TTL,
      hooks: { warn: (m) => warnings.push(m) },
    });
    const ids = ['a', 'b', 'c', 'd'];
    for (const i of ids) await beat(control.plane, i, 'closed');
    clock.set(TTL + 1);
    for (const i of ids) await beat(control.plane, i, 'open');
    clock.advance(2 * 30_000);
    await control.plane.tick();
    expect(stateOf(control)).toBe('probing');
    const publish = vi.spyOn(control.events, 'publish').mockRejectedValue(new Error('event log down'));
    const plans = await Promise.all(ids.map((i) => beat(control.plane, i, 'paused')));
    publish.mockRestore();
    expect(plans.filter((p) => p.breakers[0]!.probe !== null)).toHaveLength(1);
    expect(control.leases.live()).toBe(1);
    expect(warnings.some((w) => w.includes('not announced'))).toBe(true);
  });

  it('announces an isolated instance once when it becomes isolated and once when it recovers', async () => {
    const { clock, control } = setup(0);
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (let t = 0; t <= 4 * TTL; t += 1000) {
      clock.set(t);
      for (const i of ids) await beat(control.plane, i, i === 'c' && t <= 3 * TTL ? 'open' : 'closed');
      await control.plane.watch();
    }
    const about = control.events.events.filter((e) => e.type.startsWith('instance.'));
    expect(about.map((e) => [e.type, e.data.instanceId])).toEqual([
      ['instance.isolated', 'c'],
      ['instance.recovered', 'c'],
    ]);
    // isolated only once it stayed open past isolationAfterMs (2 TTL) after first seen open at 0
    expect(about[0]!.at).toBe(2 * TTL + 1000);
  });
});
