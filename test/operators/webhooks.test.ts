// Webhook alerts end to end (issue 12): the real app in-process on real Postgres, Redis and BullMQ,
// a receiver on loopback. An outage alerts breaker.opened then breaker.recovered, once each, signed;
// a receiver that is down gets every alert once it is back; attempts past the last are dead letters
// an operator retries; a bad node alerts instance.isolated. Retry delays are tens of milliseconds.
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../apps/controller/src/webhooks/webhook-signature.js';
import { rampPool } from '../recovery/support/ramp-pool.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import { WEBHOOK_EVENTS } from '../../apps/controller/src/webhooks/webhook-events.js';
import { type Receiver, startReceiver } from './support/receiver.js';

const SECRET = 'webhook-secret-0123';
const ALL_EVENTS = [...WEBHOOK_EVENTS];

let t: TestApp;
let key: string;
let receiver: Receiver;
const groups = ['wh-outage', 'wh-down', 'wh-badnode'];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await bootTestApp({
    RECLOSER_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    RECLOSER_WEBHOOK_ATTEMPTS: '5',
    RECLOSER_WEBHOOK_BACKOFF_MS: '100',
    RECLOSER_WEBHOOK_TIMEOUT_MS: '2000',
    RECLOSER_ISOLATION_AFTER_MS: '600',
    // a wide quorum.near band: one open instance of five (K = 3) is near
    RECLOSER_QUORUM_NEAR_FRACTION: '0.5',
  });
  key = (await createFleetKey(t, groups)).key;
  const sub = await t.admin('POST', '/v1/admin/webhooks', {
    url: receiver.url,
    secret: SECRET,
    events: ALL_EVENTS,
  });
  expect(sub.status).toBe(201);
  expect(sub.body).not.toHaveProperty('secret');
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const bodies = (r: Receiver) => r.accepted().map((x) => ({ ...x, json: JSON.parse(x.body) as any }));
const of = (r: Receiver, dependency: string, type: string) =>
  bodies(r).filter((b) => b.json.dependency === dependency && b.json.type === type);

async function until<T>(what: string, fn: () => Promise<T | undefined>, tries = 150): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const got = await fn();
    if (got !== undefined) return got;
    await sleep(150);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('webhook subscriptions', () => {
  it('refuses private, loopback and metadata targets the allow-list does not name, and bad bodies', async () => {
    for (const url of [
      'http://169.254.169.254/latest',
      'http://10.0.0.1/x',
      'http://localhost/x',
      'http://[::1]/x',
    ]) {
      const res = await t.admin('POST', '/v1/admin/webhooks', {
        url,
        secret: SECRET,
        events: ['breaker.opened'],
      });
      expect(res.status, url).toBe(400);
      expect(res.body.message).toMatch(/private|loopback|link-local/);
    }
    const badEvent = await t.admin('POST', '/v1/admin/webhooks', {
      url: receiver.url,
      secret: SECRET,
      events: ['breaker.exploded'],
    });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.message).toMatch(/events must be among/);
    const list = await t.admin('GET', '/v1/admin/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toHaveLength(1);
    expect(list.body.webhooks[0]).not.toHaveProperty('secret');
    expect((await t.request('GET', '/v1/admin/webhooks')).status).toBe(401);
  });
});

describe('an outage', () => {
  const group = groups[0]!;
  const dependency = 'wh-llm';
  const instances = ['a', 'b', 'c', 'd'];
  const beat = (id: string, state: 'open' | 'closed') =>
    heartbeat(t, key, {
      instanceId: id,
      group,
      breakers: [verdict(dependency, state, { demand: { standard: 10 } })],
    });

  it('alerts breaker.opened then breaker.recovered, each once, signed, with ids to deduplicate on', async () => {
    expect((await t.admin('PUT', '/v1/admin/pools/wh-pool', rampPool(dependency))).status).toBe(200);
    await until('open', async () => {
      const plans = await Promise.all(instances.map((id) => beat(id, 'open')));
      return plans.some((p) => p.body.breakers[0].global.state !== 'closed') ? true : undefined;
    });
    // the fleet keeps reporting open for a while: heartbeats, not state changes, so no more alerts
    for (let i = 0; i < 5; i++) await Promise.all(instances.map((id) => beat(id, 'open')));
    for (let passed = 0; passed < 2; passed++) {
      const probe = await until('a designated prober', async () => {
        const plans = await Promise.all(instances.map((id) => beat(id, 'open')));
        return plans.map((p) => p.body.breakers[0]).find((b: any) => b.probe)?.probe;
      });
      const res = await t.request('POST', `/v1/probes/${probe.token}/result`, {
        token: key,
        body: { outcome: 'success', latencyMs: 50 },
      });
      expect(res.status).toBe(200);
    }
    await until('closed', async () => {
      const plans = await Promise.all(instances.map((id) => beat(id, 'closed')));
      return plans.every((p) => p.body.breakers[0].global.state === 'closed') ? true : undefined;
    });
    await until('the recovered alert', async () =>
      of(receiver, dependency, 'breaker.recovered').length ? true : undefined,
    );
    await sleep(1000); // anything extra would have arrived by now

    const opened = of(receiver, dependency, 'breaker.opened');
    const recovered = of(receiver, dependency, 'breaker.recovered');
    expect(opened).toHaveLength(1);
    expect(recovered).toHaveLength(1);
    const mine = bodies(receiver).filter(
      (b) => b.json.dependency === dependency && b.json.type.startsWith('breaker.'),
    );
    // delivery order is not promised (retries, concurrent attempts); occurredAt is the event's time
    const order = [...mine]
      .sort((a, b) => Date.parse(a.json.occurredAt) - Date.parse(b.json.occurredAt))
      .map((b) => b.json.type);
    expect(order.indexOf('breaker.opened')).toBeLessThan(order.indexOf('breaker.probing'));
    expect(order.indexOf('breaker.probing')).toBeLessThan(order.indexOf('breaker.ramp_step'));
    expect(order.indexOf('breaker.ramp_step')).toBeLessThan(order.indexOf('breaker.recovered'));
    // one alert per state change: as many as the transition log has rows (watches aside)
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${opened[0]!.json.breakerId}`);
    expect(mine).toHaveLength(log.body.transitions.length);
    expect(new Set(mine.map((b) => b.json.id)).size).toBe(mine.length);
    const now = Math.floor(Date.now() / 1000);
    for (const b of mine) {
      expect(verifySignature(SECRET, b.headers['x-recloser-signature'] as string, b.body, now)).toBe(true);
      expect(
        verifySignature('not-the-secret', b.headers['x-recloser-signature'] as string, b.body, now),
      ).toBe(false);
      expect(b.headers['x-recloser-event-id']).toBe(b.json.id);
    }
    expect(opened[0]!.json).toMatchObject({
      type: 'breaker.opened',
      group,
      dependency,
      data: { from: 'closed', to: 'open', actor: 'quorum' },
    });
  });
});

describe('a receiver that is down', () => {
  const group = groups[1]!;
  const dependency = 'wh-down-dep';
  const beatAll = (state: 'open' | 'closed') =>
    Promise.all(
      ['a', 'b', 'c'].map((id) =>
        heartbeat(t, key, { instanceId: id, group, breakers: [verdict(dependency, state)] }),
      ),
    );

  it('gets every alert once it is back; attempts past the last are dead letters an operator retries', async () => {
    const dead = await t.admin('POST', '/v1/admin/webhooks', {
      url: 'http://127.0.0.1:9/never',
      secret: SECRET,
      events: ['breaker.opened', 'breaker.forced'],
      format: 'slack',
    });
    expect(dead.status).toBe(201);
    receiver.down = true;
    const before = receiver.all.length;
    await until('open', async () => {
      const plans = await beatAll('open');
      return plans.some((p) => p.body.breakers[0].global.state === 'open') ? true : undefined;
    });
    const breakerId = (await beatAll('open'))[0]!.body.breakers[0].breakerId as string;
    const forced = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'test',
    });
    expect(forced.status).toBe(200);
    // attempts while down: refused with 503, retried with backoff
    await until('retries', async () =>
      receiver.all.slice(before).filter((r) => r.status === 503).length >= 4 ? true : undefined,
    );
    const retrying = await t.admin('GET', '/v1/admin/webhooks/deliveries?status=retrying');
    expect(retrying.body.deliveries.some((d: any) => d.lastStatusCode === 503 && d.attempts >= 1)).toBe(true);
    receiver.down = false;
    await until('both alerts delivered', async () =>
      of(receiver, dependency, 'breaker.opened').length && of(receiver, dependency, 'breaker.forced').length
        ? true
        : undefined,
    );
    await sleep(500);
    expect(of(receiver, dependency, 'breaker.opened')).toHaveLength(1);
    expect(of(receiver, dependency, 'breaker.forced')).toHaveLength(1);

    // the subscription to a closed port: 5 attempts (≈100+200+400+800 ms of backoff), then dead
    const deadOnes = await until('dead letters', async () => {
      const res = await t.admin(
        'GET',
        `/v1/admin/webhooks/deliveries?status=dead&subscriptionId=${dead.body.id}`,
      );
      return res.body.deliveries.length === 2 ? res.body : undefined;
    });
    expect(deadOnes.counts.dead).toBe(2);
    for (const d of deadOnes.deliveries) {
      expect(d.attempts).toBe(5);
      expect(d.lastError).toMatch(/ECONNREFUSED/);
      expect(d.payload).toEqual({ text: expect.stringContaining(`${group}/${dependency}`) });
    }
    const retried = await t.admin('POST', `/v1/admin/webhooks/deliveries/${deadOnes.deliveries[0].id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe('pending');
    const again = await until('a fresh run of attempts', async () => {
      const res = await t.admin('GET', `/v1/admin/webhooks/deliveries?subscriptionId=${dead.body.id}`);
      const d = res.body.deliveries.find((x: any) => x.id === deadOnes.deliveries[0].id);
      return d.status === 'dead' && d.attempts === 10 ? d : undefined;
    });
    expect(again.attempts).toBe(10);
    const deliveredOne = (await t.admin('GET', '/v1/admin/webhooks/deliveries?status=delivered')).body
      .deliveries[0];
    const delivered = await t.admin('POST', `/v1/admin/webhooks/deliveries/${deliveredOne.id}/retry`);
    expect(delivered.status).toBe(409);
    expect((await t.admin('DELETE', `/v1/admin/webhooks/${dead.body.id}`)).status).toBe(204);
  });
});

describe('a bad node', () => {
  const group = groups[2]!;
  const dependency = 'wh-bad-dep';

  it('alerts instance.isolated once while its group stays closed', async () => {
    const beat = (id: string, state: 'open' | 'closed') =>
      heartbeat(t, key, { instanceId: id, group, breakers: [verdict(dependency, state)] });
    const alerts = await pollUntil(
      async () => {
        await Promise.all([
          beat('bad', 'open'),
          beat('ok1', 'closed'),
          beat('ok2', 'closed'),
          beat('ok3', 'closed'),
          beat('ok4', 'closed'),
        ]);
        return of(receiver, dependency, 'instance.isolated');
      },
      (a) => a.length > 0,
      { attempts: 60, everyMs: 200 },
    );
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.json).toMatchObject({
      type: 'instance.isolated',
      group,
      dependency,
      data: { instanceId: 'bad' },
    });
    for (let i = 0; i < 5; i++) {
      await Promise.all([
        beat('bad', 'open'),
        beat('ok1', 'closed'),
        beat('ok2', 'closed'),
        beat('ok3', 'closed'),
        beat('ok4', 'closed'),
      ]);
      await sleep(200);
    }
    expect(of(receiver, dependency, 'instance.isolated')).toHaveLength(1);
    expect(of(receiver, dependency, 'breaker.opened')).toHaveLength(0);
    // 1 open of 5 live, threshold 3: within the configured band, announced once
    const near = of(receiver, dependency, 'quorum.near');
    expect(near).toHaveLength(1);
    expect(near[0]!.json.data.quorum).toMatchObject({ open: 1, live: 5, threshold: 3 });
  });
});
