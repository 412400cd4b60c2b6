import {
  FakeClock,
  seededRng,
  type BreakerPlan,
  type GlobalState,
  type HeartbeatRequest,
  type Outcome,
  type HeartbeatResponse,
  type ProbeResultRequest,
} from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBreakerOpenError, TransportError } from '../errors/Errors.js';
import { createRecloser, type FallbackOptions } from '../Recloser.js';
import { BACKLOG_DRAIN_MS } from './Breaker.js';
import type { ProbeLeaseRequest, Transport } from '../transport/Transport.js';

/** A faked controller: records heartbeats and probe results, answers with plans the test sets. */
class FakedController implements Transport {
  heartbeats: HeartbeatRequest[] = [];
  probeResults: { token: string; body: ProbeResultRequest }[] = [];
  down = false;
  plans = new Map<string, BreakerPlan>();
  leaseTtlMs = 5_000;

  setPlan(dependency: string, state: GlobalState, extra: Partial<BreakerPlan> = {}): void {
    this.plans.set(dependency, {
      dependency,
      breakerId: `b-${dependency}`,
      global: {
        state,
        epoch: 1,
        step: state === 'ramping' ? 0 : null,
        steps: 6,
        quorum: { open: 0, live: 1, threshold: 2 },
      },
      allowance: null,
      probe: null,
      fallback: null,
      ...extra,
    });
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    this.heartbeats.push(structuredClone(req));
    if (this.down) throw new TransportError('faked: controller unreachable', null);
    return {
      serverTime: new Date(0).toISOString(),
      heartbeatIntervalMs: 1_000,
      leaseTtlMs: this.leaseTtlMs,
      breakers: req.breakers
        .map((b) => this.plans.get(b.dependency))
        .filter((p): p is BreakerPlan => p !== undefined),
    };
  }

  async probeResult(token: string, body: ProbeResultRequest): Promise<void> {
    this.probeResults.push({ token, body });
  }

  async lease(_req: ProbeLeaseRequest): Promise<never> {
    throw new TransportError('faked: no leases', 429, 1_000);
  }
}

function setup(fallback: FallbackOptions = {}) {
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
    fallback,
  });
  const cooldown = { baseMs: 5_000, maxMs: 60_000, multiplier: 2, jitter: 0 };
  const llm = recloser.breaker('llm', { local: { cooldown } });
  return { clock, controller, recloser, llm };
}

const refused = () =>
  Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
const ok = async () => 'ok';

describe('Breaker with a faked controller: closed group', () => {
  it('runs calls, and posts one heartbeat per tick carrying every breaker with evidence and demand', async () => {
    const { clock, controller, recloser, llm } = setup();
    const pay = recloser.breaker('payments');
    expect(recloser.breaker('llm')).toBe(llm);
    await expect(llm.execute(ok)).resolves.toBe('ok');
    await expect(llm.execute(refused)).rejects.toThrow('ECONNREFUSED');
    expect(pay.allow('small')).toBe(true);
    pay.record('client_error', { latencyMs: 3, trafficClass: 'small' });
    expect(pay.allow()).toBe(true);
    pay.record('success'); // no info: counted, untimed
    clock.advance(2_000);
    await recloser.tick();
    expect(controller.heartbeats).toHaveLength(1);
    const hb = controller.heartbeats[0]!;
    expect(hb).toMatchObject({ instanceId: 'w-1', group: 'orders', region: 'eu-west' });
    expect(hb.breakers).toHaveLength(2);
    expect(hb.breakers[0]).toMatchObject({
      dependency: 'llm',
      state: 'closed',
      evidence: { attempts: 2, successes: 1, byClass: { network: 1, overload: 0 } },
      demand: { standard: 1 }, // 2 calls over 2 s
    });
    expect(hb.breakers[1]).toMatchObject({
      dependency: 'payments',
      evidence: { attempts: 2, successes: 1, byClass: { client_error: 1 }, latencyP95Ms: 3 },
      demand: { small: 0.5, standard: 0.5 },
    });
  });

  it('classifies fetch Responses returned by fn: 503 counts as overload, 404 as client_error', async () => {
    const { controller, recloser, llm } = setup();
    await llm.execute(async () => new Response('', { status: 503 }));
    await llm.execute(async () => new Response('', { status: 404 }));
    await recloser.tick();
    expect(controller.heartbeats[0]!.breakers[0]!.evidence.byClass).toMatchObject({
      overload: 1,
      client_error: 1,
    });
  });

  it('does not count a call the caller aborted', async () => {
    const { controller, recloser, llm } = setup();
    const aborter = new AbortController();
    const pending = llm.execute(
      (signal) =>
        new Promise<never>((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason))),
      { signal: aborter.signal },
    );
    aborter.abort();
    await expect(pending).rejects.toThrow();
    await expect(llm.execute(ok, { signal: aborter.signal })).rejects.toThrow();
    await recloser.tick();
    expect(controller.heartbeats[0]!.breakers[0]!.evidence.attempts).toBe(0);
  });

  it('opens locally after 3 bad ticks and refuses with BreakerOpenError until the self-probe at T (not T-1 ms)', async () => {
    const { clock, recloser, llm } = setup();
    const changes: string[] = [];
    llm.onStateChange((e) => changes.push(`${e.from}->${e.to}`));
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 5; i++) await llm.execute(refused).catch(() => undefined);
      clock.advance(1_000);
      await recloser.tick();
    }
    expect(llm.state).toBe('local_open');
    const openedAt = clock.now();
    const err = await llm.execute(ok).catch((e: unknown) => e);
    expect(isBreakerOpenError(err)).toBe(true);
    expect(err).toMatchObject({ reason: 'local_open', retryAfterMs: 5_000 });
    clock.set(openedAt + 4_999);
    expect(llm.allow()).toBe(false);
    clock.set(openedAt + 5_000);
    await expect(llm.execute(ok)).resolves.toBe('ok');
    expect(llm.state).toBe('closed');
    expect(changes).toEqual(['closed->local_open', 'local_open->closed']);
  });

  it('honours a 429 Retry-After: no attempt at T-1 ms, attempts again at T', async () => {
    const { clock, llm } = setup();
    await llm.execute(async () => new Response('', { status: 429, headers: { 'retry-after': '2' } }));
    const at = clock.now();
    const err = await llm.execute(ok).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'retry_after', retryAfterMs: 2_000 });
    clock.set(at + 1_999);
    expect(llm.allow()).toBe(false);
    clock.set(at + 2_000);
    expect(llm.allow()).toBe(true);
  });
});

describe('Breaker with a faked controller: robustness', () => {
  it('treats a malformed heartbeat answer as unreachable instead of throwing', async () => {
    const { controller, recloser, llm } = setup();
    controller.heartbeat = async () => ({}) as HeartbeatResponse;
    const result = await recloser.tick();
    expect(result.reachable).toBe(false);
    expect(llm.state).toBe('fallback');
  });

  it('keeps its local breaker across a restart through toJSON and local.initialState', async () => {
    const { clock, recloser, llm } = setup();
    for (let t = 0; t < 3; t++) {
      for (let i = 0; i < 5; i++) await llm.execute(refused).catch(() => undefined);
      clock.advance(1_000);
      await recloser.tick();
    }
    const saved = JSON.parse(JSON.stringify(llm.toJSON()));
    const again = createRecloser({
      instanceId: 'w-1',
      group: 'orders',
      region: 'eu-west',
      clock,
      transport: new FakedController(),
      autoStart: false,
    });
    const restored = again.breaker('llm', { local: { initialState: saved } });
    expect(restored.state).toBe('local_open');
    expect(restored.allow()).toBe(false);
  });
});

describe('Breaker with a faked controller: plans', () => {
  it('pauses on a plan saying open: zero attempts, even long after the local cooldown', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'open');
    await recloser.tick();
    expect(llm.state).toBe('paused');
    let calls = 0;
    for (let i = 0; i < 100; i++) {
      clock.advance(1_000);
      await llm.execute(async () => ++calls).catch(() => undefined);
      await recloser.tick();
    }
    expect(calls).toBe(0);
    const err = await llm.execute(ok).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'paused', retryAfterMs: 1_000 });
    expect(controller.heartbeats.at(-1)!.breakers[0]!.state).toBe('paused');
  });

  it('route(): home while its breaker is not paused; a receiver of the shift within its rate while paused; home again in fallback', async () => {
    const { clock, controller, recloser, llm } = setup();
    const shift = {
      source: 'eu-west',
      mode: 'shifting' as const,
      receivers: [{ region: 'us-east', ratePerSec: 1 }],
      expiresAt: null,
    };
    controller.setPlan('llm', 'closed', { shift });
    const sentAt = clock.now();
    await recloser.tick();
    expect(llm.route(['eu-west', 'us-east'])).toBe('eu-west');
    controller.setPlan('llm', 'open', { shift });
    await recloser.tick();
    expect(llm.state).toBe('paused');
    // a new receiver's bucket starts with a random part of one token: after one token's time it has one
    clock.set(sentAt + 1_000);
    expect(llm.route(['eu-west', 'us-east'])).toBe('us-east');
    expect(llm.route(['eu-west', 'us-east'])).toBeNull(); // 1/s, a burst of one: the bucket is spent
    expect(llm.routedCalls()).toEqual({ 'us-east': 1 });
    clock.set(sentAt + 5_000); // the plan ran out: fallback keeps calls home
    expect(llm.state).toBe('fallback');
    expect(llm.route(['eu-west', 'us-east'])).toBe('eu-west');
  });

  it('route() while RAMPING: home while the allowance has room; a receiver of the shift once it is spent', async () => {
    const { clock, controller, recloser, llm } = setup();
    const shift = {
      source: 'eu-west',
      mode: 'shifting' as const,
      receivers: [{ region: 'us-east', ratePerSec: 1 }],
      expiresAt: null,
    };
    controller.setPlan('llm', 'ramping', {
      shift,
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 1, burst: 1, concurrency: 5 } } },
    });
    await recloser.tick();
    clock.advance(1_000); // the receiver's bucket has its first token
    expect(llm.state).toBe('admitted');
    expect(llm.route(['eu-west', 'us-east'])).toBe('eu-west'); // the allowance has room: home
    expect(llm.allow()).toBe(true);
    llm.record('success', { latencyMs: 5 });
    // the allowance is spent until its next token: the shift carries the call
    expect(llm.route(['eu-west', 'us-east'])).toBe('us-east');
    expect(llm.route(['eu-west', 'us-east'])).toBeNull(); // both spent: degrade in place
    clock.advance(1_000);
    expect(llm.route(['eu-west', 'us-east'])).toBe('eu-west');
  });

  it('with a probe token, lets exactly the next call through and posts its outcome to the token', async () => {
    const { controller, recloser, llm } = setup();
    const probes: unknown[] = [];
    llm.onProbe((e) => probes.push(e));
    controller.setPlan('llm', 'probing', { probe: { token: 'tok-1', fencing: 41, validForMs: 5_000 } });
    await recloser.tick();
    let calls = 0;
    const results = await Promise.allSettled([1, 2, 3].map(() => llm.execute(async () => ++calls)));
    expect(calls).toBe(1);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    await recloser.flush();
    expect(controller.probeResults).toEqual([{ token: 'tok-1', body: { outcome: 'success', latencyMs: 0 } }]);
    expect(probes).toEqual([
      { dependency: 'llm', kind: 'controller', outcome: 'success', fencing: 41, accepted: true },
    ]);
    // the same token repeated in the next plan is not used twice
    await recloser.tick();
    expect(llm.allow()).toBe(false);
  });

  it('checks the probe token on the local monotonic clock from the send time: valid at T-1 ms, not at T', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'probing', { probe: { token: 'tok-a', fencing: 1, validForMs: 5_000 } });
    const sentAt = clock.now();
    await recloser.tick();
    clock.set(sentAt + 5_000);
    expect(llm.allow()).toBe(false);

    controller.setPlan('llm', 'probing', { probe: { token: 'tok-b', fencing: 2, validForMs: 5_000 } });
    const sentAgain = clock.now();
    await recloser.tick();
    clock.set(sentAgain + 4_999);
    expect(llm.allow()).toBe(true);
  });

  it('posts a systemic probe failure with its latency', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'probing', { probe: { token: 't', fencing: 7, validForMs: 5_000 } });
    await recloser.tick();
    await llm
      .execute(async () => {
        clock.advance(250);
        return new Response('', { status: 503 });
      })
      .catch(() => undefined);
    await recloser.flush();
    expect(controller.probeResults).toEqual([{ token: 't', body: { outcome: 'overload', latencyMs: 250 } }]);
  });

  it('during a ramp enforces rate, burst and concurrency per class, and refuses classes not yet admitted', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 2, burst: 2, concurrency: 1 } } },
    });
    await recloser.tick();
    expect(llm.state).toBe('admitted');
    expect(llm.allow('long_context')).toBe(false);
    expect(llm.refusal('long_context')).toMatchObject({ reason: 'not_admitted' });

    expect(llm.allow()).toBe(true); // token 1 of 2, concurrency 1 of 1
    expect(llm.allow()).toBe(false); // concurrency
    expect(llm.refusal()).toMatchObject({ reason: 'concurrency' });
    llm.record('success', { latencyMs: 10 });
    expect(llm.allow()).toBe(true); // token 2 of 2
    llm.record('success', { latencyMs: 10 });
    expect(llm.allow()).toBe(false); // out of tokens: one every 500 ms
    expect(llm.refusal()).toMatchObject({ reason: 'rate', retryAfterMs: 500 });
    clock.advance(499);
    expect(llm.allow()).toBe(false);
    clock.advance(1);
    expect(llm.allow()).toBe(true);
    llm.record('success', { latencyMs: 10 });

    // over 10 s of eager callers the class gets at most burst + rate·t calls
    let admitted = 0;
    for (let ms = 0; ms < 10_000; ms += 50) {
      clock.advance(50);
      while (llm.allow()) {
        admitted += 1;
        llm.record('success', { latencyMs: 1 });
      }
      if (ms % 1_000 === 0) await recloser.tick(); // the same plan again must not refill the bucket
    }
    expect(admitted).toBeLessThanOrEqual(2 + 2 * 10);
    expect(admitted).toBeGreaterThanOrEqual(19);
  });

  it('a call the ramp admitted and allow()/record() reports after the ramp ended holds no slot in the next ramp', async () => {
    const { clock, controller, recloser, llm } = setup();
    const ramp = {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 5, burst: 5, concurrency: 1 } } },
    };
    for (const ended of ['open', 'closed'] as const) {
      controller.setPlan('llm', 'ramping', ramp);
      await recloser.tick();
      expect(llm.allow()).toBe(true); // the ramp's one call in flight
      expect(llm.allow()).toBe(false);
      controller.setPlan('llm', ended); // a re-trip, or the recovery completing
      clock.advance(1_000);
      await recloser.tick();
      llm.record('success', { latencyMs: 900 }); // settles after the ramp it was admitted by
      controller.setPlan('llm', 'ramping', ramp);
      clock.advance(1_000);
      await recloser.tick();
      expect(llm.allow()).toBe(true); // the next ramp's concurrency is whole
      llm.record('success', { latencyMs: 10 });
      controller.setPlan('llm', 'closed');
      await recloser.tick();
    }
  });

  it('an execute() call of an ended ramp that settles during the next one frees nothing of the next ramp', async () => {
    const { clock, controller, recloser, llm } = setup();
    const ramp = {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 5, burst: 5, concurrency: 1 } } },
    };
    controller.setPlan('llm', 'ramping', ramp);
    await recloser.tick();
    let finish: (v: string) => void = () => undefined;
    const old = llm.execute(() => new Promise<string>((resolve) => (finish = resolve)));
    controller.setPlan('llm', 'open');
    clock.advance(1_000);
    await recloser.tick();
    controller.setPlan('llm', 'ramping', ramp);
    clock.advance(1_000);
    await recloser.tick();
    expect(llm.allow()).toBe(true); // the new ramp's one call
    finish('late');
    await expect(old).resolves.toBe('late');
    expect(llm.allow()).toBe(false); // still one in flight: the old call freed nothing
    expect(llm.refusal()).toMatchObject({ reason: 'concurrency' });
    llm.record('success', { latencyMs: 10 });
    expect(llm.allow()).toBe(true);
  });

  it('switches to an announced allowance (allowance.next) at sentAt + inMs and not before: admitted at T, dropped at T', async () => {
    const { clock, controller, recloser, llm } = setup();
    const one = { standard: { ratePerSec: 1, burst: 1, concurrency: 5 } };
    // not admitted now, admitted from 700 ms after the heartbeat left
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: {}, next: { inMs: 700, classes: one } },
    });
    const sentAt = clock.now();
    await recloser.tick();
    expect(llm.allow()).toBe(false);
    expect(llm.refusal()).toMatchObject({ reason: 'not_admitted', retryAfterMs: 700 });
    clock.set(sentAt + 699);
    expect(llm.allow()).toBe(false);
    clock.set(sentAt + 700);
    expect(llm.allow()).toBe(true);
    llm.record('success', { latencyMs: 1 });

    // admitted now, not from 300 ms after this heartbeat left
    clock.set(sentAt + 2_000);
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: one, next: { inMs: 300, classes: {} } },
    });
    await recloser.tick();
    clock.set(sentAt + 2_299);
    expect(llm.allow()).toBe(true); // the token earned since the last call
    llm.record('success', { latencyMs: 1 });
    clock.set(sentAt + 2_300 + 1_000); // a token's worth later, but no longer admitted
    expect(llm.allow()).toBe(false);
    expect(llm.refusal()).toMatchObject({ reason: 'not_admitted' });
  });

  it('a later plan replaces a pending announcement; one announced in the past applies at once', async () => {
    const { clock, controller, recloser, llm } = setup();
    const one = { standard: { ratePerSec: 1, burst: 1, concurrency: 5 } };
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: {}, next: { inMs: 900, classes: one } },
    });
    await recloser.tick();
    clock.advance(500);
    controller.setPlan('llm', 'ramping', { allowance: { validForMs: 5_000, classes: {} } }); // no next: cancelled
    await recloser.tick();
    clock.advance(1_000);
    expect(llm.allow()).toBe(false);
    // an answer that arrives after its move (inMs 0): admitted at once
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: {}, next: { inMs: 0, classes: one } },
    });
    await recloser.tick();
    expect(llm.allow()).toBe(true);
  });

  it('reports demand per class even while refusing, so the controller can size allowances', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'open');
    await recloser.tick();
    for (let i = 0; i < 30; i++) llm.allow('standard');
    for (let i = 0; i < 3; i++) llm.allow('long_context');
    clock.advance(1_000);
    await recloser.tick();
    expect(controller.heartbeats[1]!.breakers[0]!.demand).toEqual({ standard: 30, long_context: 3 });
  });
});

describe('Breaker backlog option', () => {
  it('raises the default class demand by backlog / 10 s; no backlog, zero or NaN adds nothing', async () => {
    const { clock, controller, recloser } = setup();
    let waiting = 0;
    const llm = recloser.breaker('queued', { backlog: () => waiting });
    for (let i = 0; i < 4; i++) llm.allow();
    clock.advance(2_000);
    await recloser.tick();
    expect(controller.heartbeats[0]!.breakers.find((b) => b.dependency === 'queued')!.demand).toEqual({
      standard: 2,
    });
    waiting = 250; // 250 queued items → 25 more calls/s wanted
    for (let i = 0; i < 4; i++) llm.allow();
    clock.advance(2_000);
    await recloser.tick();
    expect(controller.heartbeats[1]!.breakers.find((b) => b.dependency === 'queued')!.demand).toEqual({
      standard: 2 + 250 / (BACKLOG_DRAIN_MS / 1000),
    });
    waiting = Number.NaN;
    clock.advance(1_000);
    await recloser.tick();
    expect(controller.heartbeats[2]!.breakers.find((b) => b.dependency === 'queued')!.demand).toEqual({});
  });
});

describe('Breaker with a faked controller: fallback', () => {
  it('enters fallback when the plan expires on the local clock: not at T-1 ms, at T', async () => {
    const { clock, controller, recloser, llm } = setup();
    const events: unknown[] = [];
    llm.onFallback((e) => events.push(e));
    controller.setPlan('llm', 'closed');
    const sentAt = clock.now();
    await recloser.tick();
    clock.set(sentAt + 4_999);
    expect(llm.state).toBe('closed');
    clock.set(sentAt + 5_000);
    expect(llm.state).toBe('fallback');
    expect(llm.allow()).toBe(true); // local breaking goes on
    controller.down = true;
    await recloser.tick();
    expect(events).toEqual([{ dependency: 'llm', active: true }]);
    expect(controller.heartbeats.at(-1)!.breakers[0]!.state).toBe('fallback');
  });

  it('when the controller is unreachable, keeps local breaking and never ramps beyond the last allowance', async () => {
    const { clock, controller, recloser, llm } = setup();
    const reach: boolean[] = [];
    recloser.onFallback((e) => reach.push(e.reachable));
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 1, burst: 1, concurrency: 5 } } },
    });
    await recloser.tick();
    controller.down = true;
    await recloser.tick();
    expect(recloser.reachable).toBe(false);
    expect(llm.state).toBe('fallback');
    let admitted = 0;
    for (let s = 0; s < 60; s++) {
      while (llm.allow()) {
        admitted += 1;
        llm.record('success', { latencyMs: 1 });
      }
      clock.advance(1_000);
      await recloser.tick();
    }
    expect(admitted).toBeLessThanOrEqual(1 + 60);
    controller.down = false;
    await recloser.tick();
    expect(reach).toEqual([false, true]);
    expect(llm.state).toBe('admitted');
  });

  it('stays paused in fallback unless this instance is a probe owner, which probes its part of the share with Poisson timing', async () => {
    const { clock, controller, recloser, llm } = setup({ maxIsolationMs: 1e9 });
    const other = recloser.breaker('other');
    controller.setPlan('llm', 'open', {
      fallback: { probeOwner: true, regionShare: { ratePerSec: 0.2 }, regionLive: 10, owners: 2 },
    });
    controller.setPlan('other', 'open', {
      fallback: { probeOwner: false, regionShare: { ratePerSec: 0.2 }, regionLive: 10, owners: 2 },
    });
    await recloser.tick();
    expect(llm.allow()).toBe(false); // the controller answers: no fallback probing
    controller.down = true;
    await recloser.tick();
    const probeTimes: number[] = [];
    let otherCalls = 0;
    for (let s = 0; s < 300; s++) {
      if (llm.allow()) {
        probeTimes.push(clock.now());
        llm.record('overload', { latencyMs: 5 });
      }
      if (other.allow()) otherCalls += 1;
      clock.advance(1_000);
    }
    expect(otherCalls).toBe(0);
    // the owner's part: 0.2/s ÷ 2 owners; its budget accrues from nothing and holds one call, so
    // never two within 10 s and at most 30 in 300 s; Poisson waits on top make it fewer
    expect(probeTimes.length).toBeGreaterThanOrEqual(15);
    expect(probeTimes.length).toBeLessThanOrEqual(30);
    expect(probeTimes[0]! - 10_000).toBeGreaterThanOrEqual(10_000);
    for (let i = 1; i < probeTimes.length; i++)
      expect(probeTimes[i]! - probeTimes[i - 1]!).toBeGreaterThanOrEqual(10_000);
    const gaps = new Set(probeTimes.slice(1).map((t, i) => t - probeTimes[i]!));
    expect(gaps.size).toBeGreaterThan(1); // randomised, not in step
  });

  it('forgets a fallback probe that never settles after a lease TTL (not before), so the owner probes again', async () => {
    const { clock, controller, recloser, llm } = setup({ maxIsolationMs: 1e9 });
    controller.setPlan('llm', 'open', {
      fallback: { probeOwner: true, regionShare: { ratePerSec: 2 }, regionLive: 10, owners: 2 },
    });
    await recloser.tick();
    controller.down = true;
    await recloser.tick();
    let hungAt = -1;
    for (let ms = 0; ms < 20_000 && hungAt < 0; ms += 100) {
      clock.advance(100);
      if (llm.allow()) hungAt = clock.now(); // the call hangs: never recorded
    }
    expect(hungAt).toBeGreaterThan(0);
    const probesAt: number[] = [];
    for (let ms = 0; ms < 20_000; ms += 100) {
      clock.advance(100);
      if (clock.now() % 1_000 === hungAt % 1_000) await recloser.tick(); // a heartbeat a second, failing
      if (llm.allow()) {
        probesAt.push(clock.now());
        llm.record('overload', { latencyMs: 5 });
      }
    }
    expect(probesAt.length).toBeGreaterThan(0);
    expect(probesAt[0]! - hungAt).toBeGreaterThanOrEqual(controller.leaseTtlMs);
    expect(probesAt[0]! - hungAt).toBeLessThan(controller.leaseTtlMs + 5_000);
  });

  it('an ordinary instance cut off past the maximum isolation joins at share ÷ region live; the owner drops to it (T−1 / T)', async () => {
    const { clock, controller, recloser, llm } = setup({ maxIsolationMs: 60_000 });
    const owner = recloser.breaker('owned');
    const plan = (probeOwner: boolean) => ({
      fallback: { probeOwner, regionShare: { ratePerSec: 1 }, regionLive: 4, owners: 2 },
    });
    controller.setPlan('llm', 'probing', plan(false));
    controller.setPlan('owned', 'probing', plan(true));
    await recloser.tick();
    controller.down = true;
    await recloser.tick(); // control lost at 10 s
    const lostAt = clock.now();
    const calls = { llm: [] as number[], owned: [] as number[] };
    for (let t = 0; t <= 400_000; t += 500) {
      clock.set(lostAt + t);
      if (llm.allow()) {
        calls.llm.push(t);
        llm.record('overload', { latencyMs: 5 });
      }
      if (owner.allow()) {
        calls.owned.push(t);
        owner.record('overload', { latencyMs: 5 });
      }
    }
    expect(calls.llm[0]).toBeGreaterThanOrEqual(60_000 + 4_000); // joins at 1/4 per s: 4 s of budget first
    // before the limit the owner spends 1/2 per s; after it 1/4 per s, like everyone in the region
    const before = calls.owned.filter((t) => t < 60_000).length;
    const after = calls.owned.filter((t) => t >= 64_000).length;
    expect(before).toBeLessThanOrEqual(30);
    expect(before).toBeGreaterThanOrEqual(15);
    expect(after).toBeLessThanOrEqual(84);
    expect(calls.llm.length).toBeLessThanOrEqual(84);
    expect(calls.llm.length).toBeGreaterThan(40);
  });

  it('RAMPING: keeps the last allowance while it is valid, never more, then pauses; reports the spell on the next heartbeats', async () => {
    const { clock, controller, recloser, llm } = setup();
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 2, burst: 1, concurrency: 5 } } },
      fallback: { probeOwner: false, regionShare: { ratePerSec: 0.1 }, regionLive: 10, owners: 2 },
    });
    const sentAt = clock.now();
    await recloser.tick();
    controller.down = true;
    clock.advance(1_000);
    await recloser.tick();
    expect(llm.state).toBe('fallback');
    const admittedAt: number[] = [];
    for (let t = 1_000; t < 30_000; t += 100) {
      clock.set(sentAt + t);
      while (llm.allow()) {
        admittedAt.push(t);
        llm.record('success', { latencyMs: 1 });
      }
    }
    // within the validity at most the allowance's 2/s (plus its one-call burst); nothing after it
    expect(admittedAt.every((t) => t < 5_000)).toBe(true);
    expect(admittedAt.length).toBeLessThanOrEqual(1 + 2 * 4);
    expect(admittedAt.length).toBeGreaterThan(0);
    clock.set(sentAt + 30_000);
    await recloser.tick();
    const report = controller.heartbeats.at(-1)!.breakers[0]!.fallback!;
    expect(report).toEqual({ durationMs: 29_000, attempts: admittedAt.length, probes: 0, probeSuccesses: 0 });
    // back: the spell ends, and the plan applies again
    controller.down = false;
    clock.advance(1_000);
    await recloser.tick();
    expect(llm.state).toBe('admitted');
    clock.advance(1_000);
    await recloser.tick();
    expect(controller.heartbeats.at(-1)!.breakers[0]!.fallback).toBeUndefined();
  });

  it('reports what it holds while the last allowance is still valid', async () => {
    const { clock, controller, recloser } = setup();
    recloser.breaker('llm');
    controller.setPlan('llm', 'ramping', {
      allowance: { validForMs: 5_000, classes: { standard: { ratePerSec: 0.5, burst: 1, concurrency: 1 } } },
    });
    await recloser.tick();
    controller.down = true;
    clock.advance(1_000);
    await recloser.tick();
    clock.advance(1_000);
    await recloser.tick();
    expect(controller.heartbeats.at(-1)!.breakers[0]!.fallback).toMatchObject({
      durationMs: 1_000,
      holding: { standard: 0.5 },
    });
  });
});

describe('Breaker with a faked controller: properties', () => {
  type Op =
    { kind: 'advance'; ms: number } | { kind: 'tick'; token: boolean } | { kind: 'call'; outcome: Outcome };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 8_000 }) }),
    fc.record({ kind: fc.constant('tick' as const), token: fc.boolean() }),
    fc.record({
      kind: fc.constant('call' as const),
      outcome: fc.constantFrom<Outcome>(
        'success',
        'overload',
        'network',
        'client_error',
        'cancelled',
        'rate_limited',
      ),
    }),
  );

  it('while the group is open or probing, admits no more calls than probe tokens were granted', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<GlobalState>('open', 'probing'),
        fc.array(opArb, { maxLength: 120 }),
        async (state, ops) => {
          const { clock, controller, recloser, llm } = setup();
          let tokens = 0;
          let admitted = 0;
          controller.setPlan('llm', state);
          await recloser.tick();
          for (const op of ops) {
            if (op.kind === 'advance') clock.advance(op.ms);
            else if (op.kind === 'tick') {
              const probe = op.token ? { token: `t-${++tokens}`, fencing: tokens, validForMs: 5_000 } : null;
              controller.setPlan('llm', state, { probe });
              await recloser.tick();
            } else if (llm.allow()) {
              admitted += 1;
              // a cancelled probe hands its token back, so only count calls that used one up
              if (op.outcome === 'cancelled') admitted -= 1;
              llm.record(op.outcome, { latencyMs: 1 });
            }
          }
          expect(admitted).toBeLessThanOrEqual(tokens);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('during a ramp never exceeds burst + rate·t calls nor the concurrency of the allowance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          ratePerSec: fc.double({ min: 0, max: 50, noNaN: true }),
          burst: fc.integer({ min: 0, max: 10 }),
          concurrency: fc.integer({ min: 0, max: 5 }),
        }),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 700 }), fc.constant(-1)), { maxLength: 200 }),
        async (allowance, steps) => {
          const { clock, controller, recloser, llm } = setup();
          controller.setPlan('llm', 'ramping', {
            allowance: { validForMs: 60_000, classes: { standard: allowance } },
          });
          await recloser.tick();
          const start = clock.now();
          let admitted = 0;
          let inFlight = 0;
          for (const step of steps) {
            if (step === -1) {
              if (inFlight > 0) {
                inFlight -= 1;
                llm.record('success', { latencyMs: 1 });
              }
              continue;
            }
            clock.advance(step);
            while (llm.allow()) {
              admitted += 1;
              inFlight += 1;
              expect(inFlight).toBeLessThanOrEqual(allowance.concurrency);
            }
          }
          const elapsedSec = (clock.now() - start) / 1000;
          expect(admitted).toBeLessThanOrEqual(allowance.burst + allowance.ratePerSec * elapsedSec + 1e-6);
        },
      ),
      { numRuns: 150 },
    );
  });
});
