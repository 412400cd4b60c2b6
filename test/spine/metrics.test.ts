import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { freePort } from '../../apps/simulator/src/live/freePort.js';
import { ADMIN_TOKEN, startReplicas, type ReplicaSet } from '../recovery/support/replicas.js';
import { bootTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
// resource attributes of the default OpenTelemetry detectors, as Prometheus labels
const LEAKS = ['process_command', 'process_executable', 'host_name', 'process_pid', 'process_owner'];

const get = (base: string, path: string, token?: string) =>
  fetch(base + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('/metrics: behind a bearer token by default, optionally public or on its own port', () => {
  let t: TestApp;
  const others: NestFastifyApplication[] = [];
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    for (const app of others) await app.close();
    await t?.close();
  });

  it('401 in the error shape without the token or with a wrong one, 200 with the admin token', async () => {
    const none = await t.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
    expect((await t.request('GET', '/metrics', { token: 'not-the-token-at-all' })).status).toBe(401);
    const ok = await t.request('GET', '/metrics', { token: TEST_ADMIN_TOKEN });
    expect(ok.status).toBe(200);
    expect(String(ok.headers['content-type'])).toContain('text/plain');
  });

  it('RECLOSER_METRICS_PORT with RECLOSER_METRICS_TOKEN: only that port, only that token', async () => {
    const port = await freePort();
    const app = await createControllerApp({
      ...t.env,
      RECLOSER_METRICS_PORT: String(port),
      RECLOSER_METRICS_TOKEN: METRICS_TOKEN,
    });
    others.push(app);
    const main = await app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
    expect(main.statusCode).toBe(404);
    const base = `http://127.0.0.1:${port}`;
    const none = await get(base, '/metrics');
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: expect.any(String),
    });
    expect((await get(base, '/metrics', TEST_ADMIN_TOKEN)).status).toBe(401);
    const ok = await get(base, '/metrics', METRICS_TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    const elsewhere = await get(base, '/v1/admin/overview', METRICS_TOKEN);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('RECLOSER_METRICS_PUBLIC=true opts out of the token', async () => {
    const app = await createControllerApp({ ...t.env, RECLOSER_METRICS_PUBLIC: 'true' });
    others.push(app);
    const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
  });
});

describe('/metrics of a real controller process (telemetry started by main.ts)', () => {
  let set: ReplicaSet;
  beforeAll(async () => {
    set = await startReplicas(1);
  });
  afterAll(async () => {
    await set?.stop();
  });

  it('keeps service.name and publishes no command line, executable, owner, PID or host name', async () => {
    const base = set.replicas[0]!.url;
    expect((await get(base, '/metrics')).status).toBe(401);
    await get(base, '/health/ready'); // some HTTP traffic, so the http instruments have series
    const res = await get(base, '/metrics', ADMIN_TOKEN);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^target_info\{[^}]*service_name="recloser-controller"/m);
    for (const leak of LEAKS) expect(text).not.toContain(leak);
  });
});
