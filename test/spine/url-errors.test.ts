import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

// Fastify's router answers these itself; each must leave in docs/api.md's shape, the URL not echoed
describe('unknown routes and over-long URLs: the documented error shape, no echo of the URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  const expectShape = (res: Awaited<ReturnType<TestApp['request']>>, status: number, marker: string) => {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ statusCode: status, error: expect.any(String), message: expect.any(String) });
    expect(res.text).not.toContain(marker);
  };

  it('an unknown route → 404 without the path', async () => {
    const marker = 'no-such-route-<script>';
    expectShape(await t.request('GET', `/v1/${encodeURIComponent(marker)}`), 404, 'no-such-route');
    expectShape(await t.request('POST', `/v1/${marker}`, { body: {} }), 404, 'no-such-route');
  });

  it('a 5,000-character unknown path → 404 without the path', async () => {
    const marker = 'y'.repeat(5_000);
    expectShape(await t.request('GET', `/v1/${marker}`), 404, 'yyyyyyyyyy');
  });

  it('a path parameter over the router limit → 414 without the path', async () => {
    const marker = 'z'.repeat(500);
    const res = await t.request('GET', `/v1/admin/breakers/${marker}`, { token: TEST_ADMIN_TOKEN });
    expectShape(res, 414, 'zzzzzzzzzz');
    expect(res.body.error).toBe('URI Too Long');
  });

  it('a request line over the HTTP header limit (real HTTP) → 431 in the same shape', async () => {
    const base = await t.listen();
    const res = await fetch(`${base}/v1/${'q'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ statusCode: 431, error: expect.any(String), message: expect.any(String) });
  });
});
