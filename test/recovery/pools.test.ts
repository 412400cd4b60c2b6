// PUT/GET /v1/admin/pools on the real app (in-process, real Postgres and Redis): core validation
// answers 400 naming every bad field, a dependency belongs to one pool, refused bodies change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_EXAMPLE_POOL } from '../support/pool-example.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await bootTestApp();
});

afterAll(async () => {
  await t?.close();
});

describe('pools admin API', () => {
  it('stores the docs/api.md example and shows it, defaults filled in', async () => {
    const put = await t.admin('PUT', '/v1/admin/pools/llm-pool', API_EXAMPLE_POOL);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: 'llm-pool',
      dependencies: ['llm-provider'],
      probe: { concurrency: 2 },
    });
    expect(put.body.probe.probesToPass).toBeGreaterThanOrEqual(1);
    expect((await t.admin('GET', '/v1/admin/pools/llm-pool')).body).toMatchObject({
      ramp: { steps: API_EXAMPLE_POOL.ramp.steps },
    });
    const list = await t.admin('GET', '/v1/admin/pools');
    expect(list.body.pools.map((p: { id: string }) => p.id)).toContain('llm-pool');
  });

  it('answers 400 naming each bad field, and leaves the stored pool as it was', async () => {
    const bad = await t.admin('PUT', '/v1/admin/pools/llm-pool', {
      dependencies: ['llm-provider'],
      probe: { concurrency: -1 },
      ramp: { steps: [0.5, 0.1, 7] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('ramp.steps');
    expect(bad.body.message).toContain('probe.concurrency');
    const after = await t.admin('GET', '/v1/admin/pools/llm-pool');
    expect(after.body.ramp.steps).toEqual(API_EXAMPLE_POOL.ramp.steps);
    expect(after.body.probe.concurrency).toBe(2);
  });

  it('answers 400 for bodies that are not pools at all and for reserved or malformed ids', async () => {
    expect(
      (await t.request('PUT', '/v1/admin/pools/x', { token: adminToken(), raw: '{"dependencies": [' }))
        .status,
    ).toBe(400);
    const notObject = await t.admin('PUT', '/v1/admin/pools/x', [1, 2]);
    expect(notObject.status).toBe(400);
    const reserved = await t.admin('PUT', '/v1/admin/pools/default:llm', { dependencies: ['a'] });
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toMatch(/^id: /);
    const wrongType = await t.admin('PUT', '/v1/admin/pools/typed', { probe: { leaseTtlMs: 'soon' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toContain('probe.leaseTtlMs');
  });

  it('stores a declaration that the provider sheds cleanly (ramp.shedsCleanly), false unless given, and refuses a non-boolean naming it', async () => {
    const put = await t.admin('PUT', '/v1/admin/pools/shedding', {
      dependencies: ['llm-sheds'],
      ramp: { shedsCleanly: true },
    });
    expect(put.status).toBe(200);
    expect((await t.admin('GET', '/v1/admin/pools/shedding')).body.ramp.shedsCleanly).toBe(true);
    const bad = await t.admin('PUT', '/v1/admin/pools/shedding', {
      dependencies: ['llm-sheds'],
      ramp: { shedsCleanly: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('ramp.shedsCleanly must be true or false');
    expect((await t.admin('GET', '/v1/admin/pools/shedding')).body.ramp.shedsCleanly).toBe(true);
    const plain = await t.admin('PUT', '/v1/admin/pools/plain', { dependencies: ['llm-queues'] });
    expect(plain.body.ramp.shedsCleanly).toBe(false);
  });

  it('refuses (409) a dependency that already draws on another pool, naming both', async () => {
    const clash = await t.admin('PUT', '/v1/admin/pools/other-pool', { dependencies: ['llm-provider'] });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toContain('"llm-provider" already draws on pool "llm-pool"');
    expect((await t.admin('GET', '/v1/admin/pools/other-pool')).status).toBe(404);
  });

  it('needs the admin token', async () => {
    expect((await t.request('GET', '/v1/admin/pools')).status).toBe(401);
    expect(
      (await t.request('PUT', '/v1/admin/pools/x', { token: 'wrong', body: API_EXAMPLE_POOL })).status,
    ).toBe(401);
  });
});

function adminToken(): string {
  return String(t.env.RECLOSER_ADMIN_TOKEN);
}
