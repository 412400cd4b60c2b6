// The dashboard's backend on the real app: login makes an HttpOnly SameSite session cookie that the
// admin API accepts and logout ends; the live view streams the event seam; instances are filtered and
// paged on the server (10,000 of them); configuration changes carry a reason into the operator log;
// the built page is served with its CSP.
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

let t: TestApp;
let base: string;
let key: string;
const group = 'dash-group';

beforeAll(async () => {
  t = await bootTestApp();
  base = await t.listen();
  key = (await createFleetKey(t, [group])).key;
});

afterAll(async () => {
  await t?.close();
});

async function login(): Promise<string> {
  const res = await fetch(`${base}/v1/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: TEST_ADMIN_TOKEN }),
  });
  expect(res.status).toBe(201);
  const cookie = res.headers.get('set-cookie')!;
  expect(cookie).toMatch(/^recloser_session=[\w-]{40,};/);
  expect(cookie).toContain('HttpOnly');
  expect(cookie).toContain('SameSite=Strict');
  return cookie.split(';')[0]!;
}

describe('dashboard session', () => {
  it('logs in with the admin token only, lets the cookie in, and logs out', async () => {
    const bad = await fetch(`${base}/v1/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: 'not-the-admin-token' }),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    expect(
      (await fetch(`${base}/v1/admin/overview`, { headers: { cookie: 'recloser_session=forged' } })).status,
    ).toBe(401);

    const cookie = await login();
    expect((await fetch(`${base}/v1/admin/session`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${base}/v1/admin/overview`, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${base}/v1/admin/session`, { method: 'DELETE', headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${base}/v1/admin/overview`, { headers: { cookie } })).status).toBe(401);
  });
});

describe('login under guessing', () => {
  it('refuses logins from an address past its failure budget with 429, even with the right token', async () => {
    const strict = await createControllerApp({ ...t.env, RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: '3' });
    try {
      const fastify = strict.getHttpAdapter().getInstance();
      const login = (token: string) =>
        fastify.inject({
          method: 'POST',
          url: '/v1/admin/session',
          payload: { token },
          remoteAddress: '10.9.8.7',
        });
      for (let i = 0; i < 3; i++) expect((await login(`guess-${i}`)).statusCode).toBe(401);
      const refused = await login(TEST_ADMIN_TOKEN);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // another address is not affected
      const other = await fastify.inject({
        method: 'POST',
        url: '/v1/admin/session',
        payload: { token: TEST_ADMIN_TOKEN },
        remoteAddress: '10.9.8.6',
      });
      expect(other.statusCode).toBe(201);
    } finally {
      await strict.close();
    }
  });
});

describe('live view', () => {
  it('streams the transition of a breaker that opens, as a server-sent event, from any replica', async () => {
    const cookie = await login();
    const abort = new AbortController();
    // a second replica that does not relay: its clients get the events the first one relays
    const other = await createControllerApp({ ...t.env, RECLOSER_OUTBOX_RELAY: 'false' });
    await other.listen({ port: 0, host: '127.0.0.1' });
    const otherBase = `http://127.0.0.1:${(other.getHttpAdapter().getInstance().server.address() as { port: number }).port}`;
    const res = await fetch(`${otherBase}/v1/admin/events`, { headers: { cookie }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    // one reader loop in the background; the test polls what it has read
    const reading = (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (chunk.done) return;
        text += new TextDecoder().decode(chunk.value);
      }
    })();
    const dependency = 'dash-live-dep';
    for (let i = 0; i < 60 && !text.includes('event: breaker.transition'); i++) {
      await Promise.all(
        ['a', 'b', 'c'].map((instanceId) =>
          heartbeat(t, key, { instanceId, group, breakers: [verdict(dependency, 'open')] }),
        ),
      );
      await sleep(200);
    }
    abort.abort();
    await reading;
    await other.close();
    const block = text.split('\n\n').find((b) => b.includes('event: breaker.transition'))!;
    expect(block).toBeDefined();
    const data = JSON.parse(
      block
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    expect(data).toMatchObject({
      type: 'breaker.transition',
      data: { dependency, from: 'closed', to: 'open' },
    });
    expect(block).toContain(`id: ${data.id}`);
  });
});

describe('instances of a breaker with 10,000 instances', () => {
  it('filters and pages on the server, quickly', async () => {
    const dependency = 'dash-big-dep';
    await heartbeat(t, key, { instanceId: 'seed', group, breakers: [verdict(dependency, 'closed')] });
    const overview = await t.admin('GET', '/v1/admin/overview?limit=1000');
    const breakerId = overview.body.breakers.find((b: any) => b.dependency === dependency).breakerId;
    // 10,000 verdict rows straight into the table (heartbeats at that scale are the bench's job),
    // reported a minute ahead so they stay live through the test whatever the machine's load; each
    // carries whole evidence, as a heartbeat stores it (the periodic regional evaluation reads it)
    await t.db.query(
      `INSERT INTO verdicts (breaker_id, instance_id, region, state, evidence, reported_at)
       SELECT $1, 'w' || lpad(i::text, 5, '0'), CASE WHEN i % 2 = 0 THEN 'eu-west' ELSE 'us-east' END,
              CASE WHEN i % 100 = 0 THEN 'open' ELSE 'closed' END, $2::jsonb, now() + interval '1 minute'
         FROM generate_series(1, 10000) AS i`,
      [breakerId, JSON.stringify(verdict(dependency, 'closed').evidence)],
    );
    await t.db.query(`UPDATE verdicts SET reported_at = now() + interval '1 minute' WHERE breaker_id = $1`, [
      breakerId,
    ]);
    const started = Date.now();
    const first = await t.admin(
      'GET',
      `/v1/admin/breakers/${breakerId}/instances?limit=50&state=open&region=eu-west`,
    );
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(100);
    expect(first.body.instances).toHaveLength(50);
    expect(first.body.instances.every((i: any) => i.state === 'open' && i.region === 'eu-west')).toBe(true);
    const second = await t.admin(
      'GET',
      `/v1/admin/breakers/${breakerId}/instances?limit=50&state=open&region=eu-west&cursor=${first.body.next}`,
    );
    expect(second.body.instances).toHaveLength(50);
    expect(second.body.next).toBeNull();
    expect(second.body.instances[0].instanceId > first.body.instances[49].instanceId).toBe(true);
    const prefix = await t.admin('GET', `/v1/admin/breakers/${breakerId}/instances?prefix=w0999`);
    expect(prefix.body.instances.map((i: any) => i.instanceId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `w0999${i}`),
    );
    const all = await t.admin('GET', `/v1/admin/breakers/${breakerId}/instances?limit=1000`);
    expect(all.body.total).toBe(10_001);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await t.admin('GET', `/v1/admin/breakers/${breakerId}/instances?state=exploded`)).status).toBe(
      400,
    );

    const timeline = await t.admin('GET', `/v1/admin/breakers/${breakerId}/timeline`);
    expect(timeline.status).toBe(200);
    expect(timeline.body.points.at(-1)).toMatchObject({ state: 'closed', live: 10_001, open: 100 });
    // the sampler records a breaker with live locally open instances between transitions (it has none)
    const sampled = await pollUntil(
      async () => (await t.admin('GET', `/v1/admin/breakers/${breakerId}/timeline`)).body.points,
      (points: any[]) => points.length >= 2,
      { attempts: 40, everyMs: 250 },
    );
    expect(sampled[0]).toMatchObject({ state: 'closed', live: 10_001, open: 100, threshold: 5001 });
    expect(sampled[0].at).toBeLessThan(sampled.at(-1).at);
  });
});

describe('configuration changes from the dashboard', () => {
  it('apply through the same services and land in the operator log with their reason', async () => {
    const quorum = await t.admin('PUT', `/v1/admin/dashboard/groups/${group}/quorum`, {
      fraction: 0.6,
      minOpen: 3,
      reason: 'fleet doubled',
    });
    expect(quorum.status).toBe(200);
    expect((await t.admin('GET', `/v1/admin/groups/${group}/quorum`)).body).toEqual({
      fraction: 0.6,
      minOpen: 3,
    });
    const noReason = await t.admin('PUT', `/v1/admin/dashboard/groups/${group}/quorum`, {
      fraction: 0.5,
      minOpen: 2,
    });
    expect(noReason.status).toBe(400);
    const pool = await t.admin('PUT', '/v1/admin/dashboard/pools/dash-pool', {
      reason: 'provider raised our quota',
      pool: { dependencies: ['dash-pooled'], probe: { concurrency: 3 } },
    });
    expect(pool.status).toBe(200);
    const badPool = await t.admin('PUT', '/v1/admin/dashboard/pools/dash-pool', {
      reason: 'oops',
      pool: { probe: { concurrency: -1 } },
    });
    expect(badPool.status).toBe(400);
    // the editor's round trip: the resolved pool of a breaker (defaults) saved back as a pool of its own
    const hb = await heartbeat(t, key, {
      instanceId: 'p1',
      group,
      breakers: [verdict('dash-edit-dep', 'closed')],
    });
    const resolved = await t.admin('GET', `/v1/admin/breakers/${hb.body.breakers[0].breakerId}/pool`);
    expect(resolved.body).toMatchObject({ id: 'default:dash-edit-dep', configured: false });
    const { id: _id, configured: _c, v: _v, ...body } = resolved.body;
    const saved = await t.admin('PUT', '/v1/admin/dashboard/pools/dash-edit-dep', {
      reason: 'first configuration',
      pool: { ...body, dependencies: ['dash-edit-dep'], probe: { ...body.probe, concurrency: 4 } },
    });
    expect(saved.status, saved.text).toBe(200);
    const after = await t.admin('GET', `/v1/admin/breakers/${hb.body.breakers[0].breakerId}/pool`);
    expect(after.body).toMatchObject({ id: 'dash-edit-dep', configured: true, probe: { concurrency: 4 } });
    const log = await t.admin('GET', '/v1/admin/dashboard/operator-log');
    expect(log.body.entries.map((e: any) => [e.kind, e.target, e.reason])).toEqual([
      ['pool', 'dash-edit-dep', 'first configuration'],
      ['pool', 'dash-pool', 'provider raised our quota'],
      ['quorum', group, 'fleet doubled'],
    ]);
  });
});

describe('the built dashboard', () => {
  it('is served under /dashboard/ with its CSP, and / leads there', async () => {
    const res = await fetch(`${base}/`);
    expect(res.url).toBe(`${base}/dashboard/`);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(base + asset);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });
});
