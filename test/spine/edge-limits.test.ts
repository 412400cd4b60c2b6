/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getRepositoryToken } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { FleetKeyEntity } from '../../apps/controller/src/auth/fleet-key.entity.js';
import { createFleetKey } from '../support/fleet-key.js';
import { verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

const AUTH_FAILURES = 5;
const WRITES = 20;

interface Sent {
  status: number;
  headers: Record<string, unknown>;
  body: any;
}

/** Fastify inject from a chosen client address (the limits count per address). */
async function send(
  app: NestFastifyApplication,
  method: 'GET' | 'POST',
  url: string,
  opts: { token?: string; body?: unknown; from?: string } = {},
): Promise<Sent> {
  const res = await app
    .getHttpAdapter()
    .getInstance()
    .inject({
      method,
      url,
      remoteAddress: opts.from ?? '127.0.0.1',
      headers: {
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}),
    });
  let body: any = null;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = null;
  }
  return { status: res.statusCode, headers: res.headers, body };
}

function expectTooMany(res: Sent): void {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({
    statusCode: 429,
    error: 'Too Many Requests',
    message: expect.stringMatching(/too many/),
    retryAfterMs: expect.any(Number),
  });
  expect(res.body.retryAfterMs).toBeGreaterThan(0);
  expect(res.body.retryAfterMs).toBeLessThanOrEqual(60_000);
  expect(Number(res.headers['retry-after'])).toBe(Math.ceil(res.body.retryAfterMs / 1000));
}

describe('rate limits at the edge: failed authentications per address, writes per credential, shared by replicas', () => {
  let a: TestApp;
  let b: NestFastifyApplication;
  const group = `g-edge-${randomSuffix()}`;
  const beat = (instanceId: string) => ({
    instanceId,
    group,
    region: 'eu-west',
    breakers: [verdict('dep', 'closed')],
  });

  beforeAll(async () => {
    a = await bootTestApp({
      RECLOSER_RATE_LIMIT_AUTH_FAILURES_PER_MIN: String(AUTH_FAILURES),
      RECLOSER_RATE_LIMIT_WRITES_PER_MIN: String(WRITES),
    });
    b = await createControllerApp(a.env); // a second replica: same database, same Redis prefix
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('1,500 random fleet keys at full speed: 401 for the budget, then 429 without a database lookup each', async () => {
    const findOne = vi.spyOn(a.app.get(getRepositoryToken(FleetKeyEntity)), 'findOne');
    const from = '203.0.113.7';
    const statuses: number[] = [];
    const concurrency = 8;
    let next = 0;
    const worker = async () => {
      while (next < 1500) {
        next++;
        const token = `rck_${randomBytes(24).toString('base64url')}`;
        const res = await send(a.app, 'POST', '/v1/heartbeats', { token, body: beat('i0'), from });
        statuses.push(res.status);
        if (res.status === 429) expectTooMany(res);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const unauthorized = statuses.filter((s) => s === 401).length;
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    expect(unauthorized).toBeGreaterThanOrEqual(AUTH_FAILURES);
    // requests already in flight when the budget ran out may still fail once each
    expect(unauthorized).toBeLessThanOrEqual(AUTH_FAILURES + concurrency);
    expect(findOne.mock.calls.length).toBe(unauthorized);
    findOne.mockRestore();

    // the address is refused even with a good key until the window ends; other addresses are not
    const { key } = await createFleetKey(a, [group]);
    expectTooMany(await send(a.app, 'GET', `/v1/breakers?group=${group}`, { token: key, from }));
    expect((await send(a.app, 'GET', `/v1/breakers?group=${group}`, { token: key })).status).toBe(200);
  });

  it('failed authentications count once across two replicas (one Redis prefix)', async () => {
    const from = '198.51.100.9';
    const bad = { token: 'rck_not-a-key', from };
    for (let i = 0; i < AUTH_FAILURES; i++) {
      const res = await send(i % 2 === 0 ? a.app : b, 'GET', '/v1/admin/overview', bad);
      expect(res.status).toBe(401);
    }
    expectTooMany(await send(b, 'GET', '/v1/admin/overview', bad));
    expectTooMany(await send(a.app, 'GET', '/v1/admin/overview', { token: TEST_ADMIN_TOKEN, from }));
  });

  it('writes per fleet key across both replicas: the budget, then 429; reads and other keys go on', async () => {
    const { key } = await createFleetKey(a, [group]);
    const { key: other } = await createFleetKey(a, [group]);
    for (let i = 0; i < WRITES; i++) {
      const res = await send(i % 2 === 0 ? a.app : b, 'POST', '/v1/heartbeats', {
        token: key,
        body: beat(`w${i}`),
      });
      expect(res.status).toBe(200);
    }
    expectTooMany(await send(b, 'POST', '/v1/heartbeats', { token: key, body: beat('w-over') }));
    expectTooMany(await send(a.app, 'POST', '/v1/heartbeats', { token: key, body: beat('w-over') }));
    expect((await send(a.app, 'GET', `/v1/breakers?group=${group}`, { token: key })).status).toBe(200);
    expect((await send(b, 'POST', '/v1/heartbeats', { token: other, body: beat('o1') })).status).toBe(200);
  });
});
