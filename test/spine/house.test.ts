import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

describe('controller house (real Postgres + Redis, in-process app)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates its missing database, migrates it and reports ready', async () => {
    const tables = await t.db.query<{ tablename: string }>(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    expect(tables.map((r) => r.tablename)).toEqual(
      expect.arrayContaining([
        'breakers',
        'fleet_keys',
        'transitions',
        'verdicts',
        'instances',
        'fleet_groups',
      ]),
    );
    expect((await t.request('GET', '/health/live')).status).toBe(200);
    const ready = await t.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });

  it('serves the OpenAPI document and Prometheus text', async () => {
    const doc = await t.request('GET', '/docs-json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths).toHaveProperty('/v1/admin/fleet-keys');
    for (const path of [
      '/v1/heartbeats',
      '/v1/breakers',
      '/v1/admin/overview',
      '/v1/admin/breakers/{id}/actions',
    ])
      expect(doc.body.paths).toHaveProperty([path]);
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining([
        'HeartbeatDto',
        'HeartbeatResponseDto',
        'OverviewDto',
        'BreakerDetailDto',
        'TransitionLogDto',
      ]),
    );
    // behind the admin token by default (test/spine/metrics.test.ts covers the refusals)
    const metrics = await t.request('GET', '/metrics', { token: t.env.RECLOSER_ADMIN_TOKEN! });
    expect(metrics.status).toBe(200);
    expect(String(metrics.headers['content-type'])).toContain('text/plain');
  });

  it('answers malformed JSON with 400 and an oversized body with 413, in the error shape', async () => {
    const malformed = await t.request('POST', '/v1/admin/fleet-keys', {
      token: t.env.RECLOSER_ADMIN_TOKEN!,
      raw: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(malformed.body.message).toMatch(/JSON/);
    const huge = await t.request('POST', '/v1/admin/fleet-keys', {
      token: t.env.RECLOSER_ADMIN_TOKEN!,
      body: { name: 'x', groups: ['g'], pad: 'x'.repeat(2_000_000) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  it('over real HTTP, an oversized body is read to its end and answered 413 (the client never sees a broken pipe)', async () => {
    const base = await t.listen();
    const body = JSON.stringify({ name: 'x', groups: ['g'], pad: 'x'.repeat(5_000_000) });
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${base}/v1/admin/fleet-keys`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${t.env.RECLOSER_ADMIN_TOKEN}`,
        },
        body,
      }).catch((e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message);
      statuses.push(typeof res === 'string' ? res : res.status);
      if (typeof res !== 'string') await res.text();
    }
    expect(statuses).toEqual(Array(10).fill(413));
  });

  it('any body that is not JSON is a 415', async () => {
    const fastify = t.app.getHttpAdapter().getInstance();
    const res = await fastify.inject({
      method: 'POST',
      url: '/v1/admin/fleet-keys',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${t.env.RECLOSER_ADMIN_TOKEN}` },
      payload: 'name=x',
    });
    expect(res.statusCode).toBe(415);
    expect(JSON.parse(res.body)).toMatchObject({
      statusCode: 415,
      message: expect.stringMatching(/application\/json/),
    });
  });

  it('fleet keys: admin token required, validated input naming the field, key shown once and stored hashed', async () => {
    expect(
      (await t.request('POST', '/v1/admin/fleet-keys', { body: { name: 'a', groups: ['g'] } })).status,
    ).toBe(401);
    expect(
      (
        await t.request('POST', '/v1/admin/fleet-keys', {
          token: 'wrong-token',
          body: { name: 'a', groups: ['g'] },
        })
      ).status,
    ).toBe(401);
    const bad = await t.admin('POST', '/v1/admin/fleet-keys', { name: 'a', groups: 'g' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('groups');
    const unknown = await t.admin('POST', '/v1/admin/fleet-keys', { name: 'a', groups: ['g'], admin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('admin');

    const { id, key } = await createFleetKey(t, ['g1']);
    const rows = await t.db.query<{ key_hash: string }>('SELECT key_hash FROM fleet_keys WHERE id = $1', [
      id,
    ]);
    expect(rows[0]!.key_hash).toHaveLength(64);
    expect(rows[0]!.key_hash).not.toContain(key);

    expect((await t.admin('DELETE', `/v1/admin/fleet-keys/${id}`)).status).toBe(204);
    expect((await t.admin('DELETE', `/v1/admin/fleet-keys/${id}`)).status).toBe(404);
    expect((await t.admin('DELETE', '/v1/admin/fleet-keys/not-a-uuid')).status).toBe(400);
  });
});
