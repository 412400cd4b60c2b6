import {
  DEFAULT_POOL,
  DEFAULT_QUORUM,
  emptyEvidence,
  FakeClock,
  seededRng,
  stepBudget,
  type HeartbeatResponse,
  type ReportedState,
} from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { InMemoryController } from './InMemoryController.js';

function setup() {
  const clock = new FakeClock(0);
  const pool = DEFAULT_POOL('p', 'dep');
  const controller = new InMemoryController(clock, seededRng(1), {
    group: 'g',
    dependency: 'dep',
    pool,
    quorum: DEFAULT_QUORUM,
    heartbeatIntervalMs: 1000,
    heartbeatTtlMs: 5000,
    isolationAfterMs: 30_000,
  });
  const beat = (id: string, state: ReportedState): Promise<HeartbeatResponse> =>
    controller.heartbeat({
      instanceId: id,
      group: 'g',
      region: 'eu',
      breakers: [{ dependency: 'dep', state, evidence: emptyEvidence(), demand: { standard: 1 } }],
    });
  const ids = ['a', 'b', 'c', 'd'];
  return { clock, pool, controller, beat, ids };
}

describe('InMemoryController (the control plane on in-memory ports)', () => {
  it('declares no quorum while learning, then opens once a quorum of live instances is open', async () => {
    const { clock, controller, beat, ids } = setup();
    for (const id of ids) await beat(id, id === 'd' ? 'closed' : 'open');
    await controller.tick();
    expect(controller.global.state).toBe('closed');
    clock.advance(5000);
    for (const id of ids) await beat(id, id === 'd' ? 'closed' : 'open');
    await controller.tick();
    expect(controller.global.state).toBe('open');
    expect(controller.transitions.map((t) => [t.from, t.to, t.actor])).toEqual([
      ['closed', 'open', 'quorum'],
    ]);
  });

  it('hands one probe token to one designated instance, then ramps within the step budget', async () => {
    const { clock, controller, beat, ids, pool } = setup();
    // the group's learning period: one TTL from its first heartbeat
    for (const id of ids) await beat(id, 'open');
    clock.advance(5000);
    for (const id of ids) await beat(id, 'open');
    await controller.tick();
    clock.advance(pool.probe.cooldownMs * 2);
    for (const id of ids) await beat(id, 'paused');
    await controller.tick();
    expect(controller.global.state).toBe('probing');
    const plans = await Promise.all(ids.map((id) => beat(id, 'paused')));
    const tokens = plans.map((p) => p.breakers[0]!.probe).filter((p) => p !== null);
    expect(tokens).toHaveLength(1);
    expect(controller.liveLeases()).toBeLessThanOrEqual(pool.probe.concurrency);

    await controller.probeResult(tokens[0]!.token, { outcome: 'success', latencyMs: 50 });
    // the second probe: the next grant (rate 1/s)
    clock.advance(1000);
    await controller.tick();
    const again = (await Promise.all(ids.map((id) => beat(id, 'paused'))))
      .map((p) => p.breakers[0]!.probe)
      .filter((p) => p !== null);
    expect(again).toHaveLength(1);
    await controller.probeResult(again[0]!.token, { outcome: 'success', latencyMs: 50 });
    expect(controller.global.state).toBe('ramping');

    await controller.tick();
    const ramp = await Promise.all(ids.map((id) => beat(id, 'closed')));
    const g = controller.global;
    expect(g).toMatchObject({ state: 'ramping', step: 0, level: pool.ramp.steps[0] });
    const budget = stepBudget(pool, { step: 0, level: g.level! }).standard!;
    const rates = ramp.map((p) => p.breakers[0]!.allowance!.classes.standard?.ratePerSec ?? 0);
    expect(rates.reduce((s, r) => s + r, 0)).toBeLessThanOrEqual(budget.ratePerSec + 1e-9);
    expect(ramp.every((p) => p.breakers[0]!.probe === null)).toBe(true);
  });

  it('rejects a probe result for an unknown or expired token with 409', async () => {
    const { controller } = setup();
    await expect(controller.probeResult('nope', { outcome: 'success', latencyMs: 1 })).rejects.toMatchObject({
      status: 409,
    });
  });

  it('reports an instance open for long while the group stays closed as isolated', async () => {
    const { clock, controller, beat, ids } = setup();
    for (let s = 0; s <= 40; s++) {
      for (const id of ids) await beat(id, id === 'c' ? 'open' : 'closed');
      await controller.tick();
      clock.advance(1000);
    }
    expect(controller.global.state).toBe('closed');
    expect(controller.isolated()).toEqual(['c']);
  });
});
