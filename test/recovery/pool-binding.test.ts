// An operator binds a pool to the groups allowed to draw on it. The bound group's breaker uses the
// pool (and its probe budget); another group's breaker of the same dependency draws on the
// dependency's own default pool, so it can never spend the bound pool's budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const DEPENDENCY = 'bound-llm';
let t: TestApp;
let allowed: string;
let other: string;

beforeAll(async () => {
  t = await bootTestApp();
  allowed = (await createFleetKey(t, ['payments'])).key;
  other = (await createFleetKey(t, ['batch-jobs'])).key;
});

afterAll(async () => {
  await t?.close();
});

describe('a pool bound to groups', () => {
  it('is drawn on by its groups only; another group of the same dependency gets the default pool', async () => {
    const put = await t.admin('PUT', '/v1/admin/pools/payments-pool', {
      dependencies: [DEPENDENCY],
      groups: ['payments'],
      probe: { concurrency: 3 },
    });
    expect(put.status).toBe(200);
    expect(put.body.groups).toEqual(['payments']);

    for (const [key, group] of [
      [allowed, 'payments'],
      [other, 'batch-jobs'],
    ] as const) {
      const r = await heartbeat(t, key, {
        instanceId: 'w1',
        group,
        breakers: [verdict(DEPENDENCY, 'closed')],
      });
      expect(r.status).toBe(200);
    }
    const poolOf = async (key: string, group: string) =>
      (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers[0].pool;
    expect(await poolOf(allowed, 'payments')).toBe('payments-pool');
    expect(await poolOf(other, 'batch-jobs')).toBe(`default:${DEPENDENCY}`);

    // unbinding (a PUT without groups) opens the pool to every group again
    expect(
      (await t.admin('PUT', '/v1/admin/pools/payments-pool', { dependencies: [DEPENDENCY] })).status,
    ).toBe(200);
    expect(await poolOf(other, 'batch-jobs')).toBe('payments-pool');
  });

  it('refuses an empty binding, naming the field', async () => {
    const r = await t.admin('PUT', '/v1/admin/pools/nobody-pool', {
      dependencies: ['other-llm'],
      groups: [],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('groups');
  });
});
