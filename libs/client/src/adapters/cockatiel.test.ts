import { FakeClock, seededRng } from '@recloser/core';
import { CircuitState, ConsecutiveBreaker, circuitBreaker, handleAll, isBrokenCircuitError } from 'cockatiel';
import { describe, expect, it } from 'vitest';
import { isBreakerOpenError } from '../errors/Errors.js';
import { createRecloser } from '../Recloser.js';
import { FakedController } from '../transport/FakedController.test-support.js';
import { guardCockatiel } from './cockatiel.js';

function setup() {
  const controller = new FakedController();
  const recloser = createRecloser({
    instanceId: 'w-1',
    group: 'orders',
    region: 'eu-west',
    clock: new FakeClock(10_000),
    rng: seededRng(1),
    transport: controller,
    autoStart: false,
  });
  const policy = circuitBreaker(handleAll, { halfOpenAfter: 60_000, breaker: new ConsecutiveBreaker(2) });
  const guarded = guardCockatiel(recloser, 'payments', policy);
  const calls: string[] = [];
  const call = (name: string, fail = false) =>
    policy.execute(async () => {
      calls.push(name);
      if (fail) throw new Error('provider failed');
      return name;
    });
  return { controller, recloser, policy, guarded, calls, call };
}

const settle = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ value: v }),
    (e: unknown) => ({ error: e }),
  );

describe('guardCockatiel', () => {
  it("keeps cockatiel's local logic while the group is closed and reports its state as the verdict", async () => {
    const { controller, recloser, policy, calls, call } = setup();
    await settle(call('a', true));
    await settle(call('b', true));
    expect(policy.state).toBe(CircuitState.Open);
    const broken = await settle(call('c'));
    expect('error' in broken && isBrokenCircuitError(broken.error)).toBe(true);
    expect(calls).toEqual(['a', 'b']);
    await recloser.tick();
    expect(controller.lastReported('payments')).toBe('open');
    expect(controller.heartbeats.at(-1)!.breakers[0]!.evidence.attempts).toBe(2);
  });

  it('isolates the policy while the group is OPEN, lets the probe through while PROBING, and closes it when the group ramps', async () => {
    const { controller, recloser, policy, calls, call } = setup();
    controller.setPlan('payments', 'open');
    await recloser.tick();
    expect(policy.state).toBe(CircuitState.Isolated);
    const paused = await settle(call('x'));
    expect('error' in paused && isBreakerOpenError(paused.error) && paused.error.reason).toBe('paused');
    expect(calls).toEqual([]);

    controller.setPlan('payments', 'probing', { probeToken: 'tok-9' });
    await recloser.tick();
    expect(await call('probe')).toBe('probe');
    expect(policy.state).toBe(CircuitState.Isolated); // held again after the probe
    await recloser.flush();
    expect(controller.probeResults).toEqual([
      { token: 'tok-9', body: expect.objectContaining({ outcome: 'success' }) },
    ]);

    controller.setPlan('payments', 'ramping', {
      allowance: { standard: { ratePerSec: 0.001, burst: 1, concurrency: 1 } },
    });
    await recloser.tick();
    expect(policy.state).toBe(CircuitState.Closed);
    expect(await call('admitted')).toBe('admitted');
    const over = await settle(call('over'));
    expect('error' in over && isBreakerOpenError(over.error) && over.error.reason).toBe('rate');
    expect(calls).toEqual(['probe', 'admitted']);
  });

  it('restores execute() on dispose', async () => {
    const { controller, recloser, guarded, calls, call } = setup();
    controller.setPlan('payments', 'open');
    await recloser.tick();
    guarded.dispose();
    expect(await call('free')).toBe('free');
    expect(calls).toEqual(['free']);
  });
});
