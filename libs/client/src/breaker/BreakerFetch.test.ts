import { FakeClock, seededRng } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBreakerOpenError } from '../errors/Errors.js';
import { createRecloser } from '../Recloser.js';
import { FakedController } from '../transport/FakedController.test-support.js';
import { startLoopbackServer, type LoopbackServer } from '../transport/LoopbackServer.test-support.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer();
});
afterAll(() => server.close());

function setup() {
  const clock = new FakeClock(10_000);
  const controller = new FakedController();
  const recloser = createRecloser({
    instanceId: 'w-1',
    group: 'orders',
    region: 'eu-west',
    clock,
    rng: seededRng(1),
    transport: controller,
    autoStart: false,
  });
  return { clock, controller, recloser };
}

async function refusalOf(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isBreakerOpenError(err)) throw new Error(`expected a BreakerOpenError, got ${String(err)}`);
  return err;
}

describe('recloser.fetch()', () => {
  it('passes the Response through and reports it by status in the next heartbeat', async () => {
    const { controller, recloser } = setup();
    const ok = await recloser.fetch('api', `${server.url}/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('ok');
    const down = await recloser.fetch('api', `${server.url}/down`);
    expect(down.status).toBe(503); // a 5xx is an answer, not a throw
    await recloser.tick();
    const evidence = controller.heartbeats.at(-1)!.breakers[0]!.evidence;
    expect(evidence.attempts).toBe(2);
    expect(evidence.successes).toBe(1);
    expect(evidence.byClass.overload).toBe(1);
  });

  it("obeys a 429's Retry-After: the next call is refused for that long without touching the network", async () => {
    const { clock, recloser } = setup();
    expect((await recloser.fetch('api', `${server.url}/busy`)).status).toBe(429);
    const before = server.total();
    const refused = await refusalOf(recloser.fetch('api', `${server.url}/ok`));
    expect(refused.reason).toBe('retry_after');
    expect(refused.retryAfterMs).toBe(2_000);
    expect(server.total()).toBe(before);
    clock.advance(1_999);
    await refusalOf(recloser.fetch('api', `${server.url}/ok`));
    clock.advance(2);
    expect((await recloser.fetch('api', `${server.url}/ok`)).status).toBe(200);
  });

  it('throws the branded open error without a request while the group is OPEN', async () => {
    const { controller, recloser } = setup();
    recloser.breaker('api');
    controller.setPlan('api', 'open');
    await recloser.tick();
    const before = server.total();
    const refused = await refusalOf(recloser.fetch('api', `${server.url}/ok`, { method: 'POST', body: 'x' }));
    expect(refused.reason).toBe('paused');
    expect(refused.dependency).toBe('api');
    expect(server.total()).toBe(before);
  });

  it("aborts with the caller's signal, and an aborted call does not count against the dependency", async () => {
    const { controller, recloser } = setup();
    const aborter = new AbortController();
    const call = recloser.fetch('api', `${server.url}/slow`, { signal: aborter.signal });
    setTimeout(() => aborter.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await recloser.tick();
    expect(controller.heartbeats.at(-1)!.breakers[0]!.evidence.attempts).toBe(0);
    // an already aborted signal: refused before anything is sent
    const before = server.hits.get('/slow');
    await expect(
      recloser.fetch('api', `${server.url}/slow`, { signal: aborter.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(server.hits.get('/slow')).toBe(before);
  });

  it('admits a ramp class within its allowance and names the class on the refusal', async () => {
    const { controller, recloser } = setup();
    recloser.breaker('api');
    controller.setPlan('api', 'ramping', {
      allowance: { small: { ratePerSec: 1, burst: 1, concurrency: 1 } },
    });
    await recloser.tick();
    expect((await recloser.fetch('api', `${server.url}/ok`, { trafficClass: 'small' })).status).toBe(200);
    expect(
      (await refusalOf(recloser.fetch('api', `${server.url}/ok`, { trafficClass: 'small' }))).reason,
    ).toBe('rate');
    expect((await refusalOf(recloser.fetch('api', `${server.url}/ok`))).reason).toBe('not_admitted');
  });
});

describe('recloser.close({ graceMs })', () => {
  it('lets a probe in flight finish and post its result before returning; without grace it returns first', async () => {
    for (const graceMs of [3_000, 0]) {
      const { controller, recloser } = setup();
      recloser.breaker('api');
      controller.setPlan('api', 'probing', { probeToken: `t-${graceMs}` });
      await recloser.tick();
      const probe = recloser.fetch('api', `${server.url}/slow`);
      const beats = controller.heartbeats.length;
      await recloser.close({ graceMs });
      expect(controller.heartbeats.length).toBe(beats); // nothing after close
      if (graceMs > 0)
        expect(controller.probeResults).toEqual([
          { token: 't-3000', body: expect.objectContaining({ outcome: 'success' }) },
        ]);
      else expect(controller.probeResults).toEqual([]);
      await probe;
    }
  });
});
