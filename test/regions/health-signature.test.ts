// Issue 14 on the real app (in-process, real Postgres and Redis): a pool declares its failure domain
// (validated, stored, shown), and every breaker publishes its health signature — the error rate and
// saturation of the pool-wide picture (and of its region, for a region-scoped breaker) — on
// GET /v1/breakers and on the admin detail, counted from live heartbeat rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
const group = 'regional-fleet';

beforeAll(async () => {
  t = await bootTestApp();
  key = (await createFleetKey(t, [group])).key;
});

afterAll(async () => {
  await t?.close();
});

describe('pool failure domain', () => {
  it('stores a declared domain and shows it; refuses an unknown one naming the field', async () => {
    const put = await t.admin('PUT', '/v1/admin/pools/regional', {
      dependencies: ['llm'],
      failureDomain: 'region',
    });
    expect(put.status).toBe(200);
    expect(put.body.failureDomain).toBe('region');
    expect((await t.admin('GET', '/v1/admin/pools/regional')).body.failureDomain).toBe('region');
    const bad = await t.admin('PUT', '/v1/admin/pools/regional', {
      dependencies: ['llm'],
      failureDomain: 'zone',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'failureDomain must be one of: provider, region, endpoint, model, credential',
    );
    expect((await t.admin('GET', '/v1/admin/pools/regional')).body.failureDomain).toBe('region');
  });
});

describe('health signature', () => {
  it('publishes the pool-wide error rate and saturation of a breaker on the list and the detail', async () => {
    // eu-west: two instances failing every call; us-east and ap-south: healthy, one throttled now and then
    const throttled = verdict('llm', 'closed');
    throttled.evidence.byClass.rate_limited = 4;
    throttled.evidence.successes = 16;
    const beats = [
      { instanceId: 'eu-1', region: 'eu-west', v: verdict('llm', 'open') },
      { instanceId: 'eu-2', region: 'eu-west', v: verdict('llm', 'open') },
      { instanceId: 'us-1', region: 'us-east', v: throttled },
      ...['us-2', 'us-3'].map((instanceId) => ({
        instanceId,
        region: 'us-east',
        v: verdict('llm', 'closed'),
      })),
      ...['ap-1', 'ap-2', 'ap-3'].map((instanceId) => ({
        instanceId,
        region: 'ap-south',
        v: verdict('llm', 'closed'),
      })),
    ];
    for (const b of beats) {
      const res = await heartbeat(t, key, {
        instanceId: b.instanceId,
        group,
        region: b.region,
        breakers: [b.v],
      });
      expect(res.status).toBe(200);
    }
    const list = await t.request('GET', `/v1/breakers?group=${group}`, { token: key });
    expect(list.status).toBe(200);
    const b = list.body.breakers.find((x: { dependency: string }) => x.dependency === 'llm');
    expect(b.region).toBeNull();
    expect(b.state).toBe('closed');
    // 160 attempts: 40 overload (eu-west) + 4 throttled (us-east) failed; 4 pushed back
    expect(b.health).toEqual({
      region: null,
      pool: { live: 8, attempts: 160, errorRate: 44 / 160, saturation: 4 / 160 },
    });
    // per-region quorum: eu-west reached its own (2 of 2) while the rest is healthy; the pool did not
    // (nothing moved between regions: no routed rates, no shift plan allowing any)
    expect(b.regions).toEqual([
      {
        region: 'ap-south',
        verdict: 'closed',
        quorum: { open: 0, live: 3, threshold: 2 },
        errorRate: 0,
        saturation: 0,
        routedInRate: 0,
        shiftAllowedRate: 0,
      },
      {
        region: 'eu-west',
        verdict: 'region_open',
        quorum: { open: 2, live: 2, threshold: 2 },
        errorRate: 1,
        saturation: 0,
        routedInRate: 0,
        shiftAllowedRate: 0,
      },
      {
        region: 'us-east',
        verdict: 'closed',
        quorum: { open: 0, live: 3, threshold: 2 },
        errorRate: 4 / 60,
        saturation: 4 / 60,
        routedInRate: 0,
        shiftAllowedRate: 0,
      },
    ]);
    const detail = await t.admin('GET', `/v1/admin/breakers/${b.breakerId}`);
    expect(detail.status).toBe(200);
    expect(JSON.stringify(detail.body)).toContain('"verdict":"region_open"');
  });
});
