// Hostile input on the operators' endpoints (issue 9's rule holds for issue 12's additions): any body
// or query gets a 4xx naming the problem, never a 5xx, and a refused subscription makes no row.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const RUNS = Number(process.env.OPERATORS_FUZZ_RUNS ?? 150);
let t: TestApp;
let breakerId: string;

beforeAll(async () => {
  t = await bootTestApp({ RECLOSER_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const key = (await createFleetKey(t, ['hostile-ops'])).key;
  const res = await heartbeat(t, key, {
    instanceId: 'i1',
    group: 'hostile-ops',
    breakers: [verdict('dep', 'closed')],
  });
  breakerId = res.body.breakers[0].breakerId;
});

afterAll(async () => {
  await t?.close();
});

const valid = {
  url: 'http://127.0.0.1:9/hook',
  secret: 'secret-123456',
  events: ['breaker.opened'],
  format: 'json',
};
const hostileValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 5 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  fc.constantFrom(
    'http://169.254.169.254/',
    'ftp://x/',
    'http://[::1]/',
    'http://user:pw@example.com/',
    'x'.repeat(5000),
  ),
);

describe('operators endpoints under hostile input', () => {
  it(`${RUNS} mutated webhook subscriptions: 4xx or 201, never 5xx; refused ones make no row`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('url', 'secret', 'events', 'format', 'description', 'extra'),
        hostileValue,
        async (field, value) => {
          const before = (
            await t.db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_subscriptions')
          )[0]!.n;
          const res = await t.admin('POST', '/v1/admin/webhooks', { ...valid, [field]: value });
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
          const after = (
            await t.db.query<{ n: string }>('SELECT count(*) AS n FROM webhook_subscriptions')
          )[0]!.n;
          if (res.status >= 400) {
            expect(res.body).toMatchObject({ statusCode: res.status, message: expect.any(String) });
            expect(after).toBe(before);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`${RUNS} hostile queries on deliveries, instances, extras and the operator log: never 5xx`, async () => {
    const paths = [
      '/v1/admin/webhooks/deliveries',
      `/v1/admin/breakers/${breakerId}/instances`,
      '/v1/admin/dashboard/extras',
      '/v1/admin/dashboard/operator-log',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom(
          'status',
          'subscriptionId',
          'limit',
          'cursor',
          'state',
          'region',
          'prefix',
          'live',
          'isolated',
          'pools',
          'target',
        ),
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.integer().map(String),
          fc.constant('%00'),
          fc.constant('%'.repeat(3)),
        ),
        async (path, name, value) => {
          const res = await t.admin('GET', `${path}?${name}=${encodeURIComponent(value)}`);
          expect(res.status, `${path}?${name}=${value}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
    for (const bad of ['not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      expect((await t.admin('GET', `/v1/admin/breakers/${bad}/instances`)).status).toBe(404);
      expect((await t.admin('GET', `/v1/admin/breakers/${bad}/timeline`)).status).toBe(404);
      expect((await t.admin('POST', `/v1/admin/webhooks/deliveries/${bad}/retry`)).status).toBe(404);
      expect((await t.admin('DELETE', `/v1/admin/webhooks/${bad}`)).status).toBe(404);
    }
  });

  it('refuses a login body that is not a token, and configuration changes without a reason', async () => {
    for (const body of [
      {},
      { token: 5 },
      { token: '' },
      { token: 'x'.repeat(5000) },
      { token: 'a', extra: 1 },
    ])
      expect((await t.request('POST', '/v1/admin/session', { body })).status).toBeGreaterThanOrEqual(400);
    const pool = await t.admin('PUT', '/v1/admin/dashboard/pools/p1', {
      pool: { probe: { concurrency: 1 } },
    });
    expect(pool.status).toBe(400);
    const notObject = await t.admin('PUT', '/v1/admin/dashboard/pools/p1', { pool: 'x', reason: 'r' });
    expect(notObject.status).toBe(400);
  });
});
