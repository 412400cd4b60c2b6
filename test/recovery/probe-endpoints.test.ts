// The edges of POST /v1/probes/lease and /v1/probes/{token}/result on the real app (in-process):
// which state answers what, and bad input is a 4xx naming the field, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let foreignKey: string;
const group = 'edges';
const lease = (body: unknown, token = key) => t.request('POST', '/v1/probes/lease', { token, body });
const beat = (instanceId: string, dependency: string, state: 'open' | 'closed') =>
  heartbeat(t, key, { instanceId, group, breakers: [verdict(dependency, state)] });

beforeAll(async () => {
  t = await bootTestApp();
  key = (await createFleetKey(t, [group])).key;
  foreignKey = (await createFleetKey(t, ['someone-else'])).key;
  // a long cooldown keeps the "slow" breaker OPEN for the whole test
  await t.admin('PUT', '/v1/admin/pools/slow-pool', {
    dependencies: ['slow'],
    probe: { cooldownMs: 600_000 },
  });
});

afterAll(async () => {
  await t?.close();
});

describe('probe endpoints', () => {
  it('404 for a breaker no instance reported yet', async () => {
    const r = await lease({ instanceId: 'i1', group, dependency: 'never-seen' });
    expect(r.status).toBe(404);
    expect(r.body.message).toContain('never-seen');
  });

  it('409 while the breaker is closed: there is nothing to probe', async () => {
    expect((await beat('i1', 'healthy', 'closed')).status).toBe(200);
    const r = await lease({ instanceId: 'i1', group, dependency: 'healthy' });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain('closed');
  });

  it('429 with Retry-After while the breaker is open and cooling down', async () => {
    let state = 'closed';
    for (let i = 0; i < 60 && state !== 'open'; i++) {
      const plans = await Promise.all(['a', 'b', 'c'].map((id) => beat(id, 'slow', 'open')));
      state = plans[0]!.body.breakers[0].global.state;
      if (state !== 'open') await new Promise((r) => setTimeout(r, 150));
    }
    expect(state).toBe('open');
    const r = await lease({ instanceId: 'a', group, dependency: 'slow' });
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(60);
    expect(r.body.retryAfterMs).toBeGreaterThan(60_000);
    expect(r.body.message).toContain('cooling down');
  });

  it('409 while an operator holds the breaker open', async () => {
    const plan = await beat('i1', 'held', 'closed');
    const breakerId = plan.body.breakers[0].breakerId as string;
    const forced = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_open',
      reason: 'provider maintenance',
    });
    expect(forced.status).toBeLessThan(300);
    const r = await lease({ instanceId: 'i1', group, dependency: 'held' });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain('operator');
  });

  it('400 naming the field for bad lease and result bodies', async () => {
    const missing = await lease({ group, dependency: 'slow' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('instanceId');
    const badOutcome = await t.request('POST', '/v1/probes/whatever/result', {
      token: key,
      body: { outcome: 'fine', latencyMs: 3 },
    });
    expect(badOutcome.status).toBe(400);
    expect(badOutcome.body.message).toContain('outcome');
    const negative = await t.request('POST', '/v1/probes/whatever/result', {
      token: key,
      body: { outcome: 'success', latencyMs: -1 },
    });
    expect(negative.status).toBe(400);
    expect(negative.body.message).toContain('latencyMs');
  });

  it('401 without a key, 403 for a group outside the key', async () => {
    expect(
      (await t.request('POST', '/v1/probes/lease', { body: { instanceId: 'a', group, dependency: 'slow' } }))
        .status,
    ).toBe(401);
    expect((await lease({ instanceId: 'a', group, dependency: 'slow' }, foreignKey)).status).toBe(403);
  });

  it('409 for a result on a token the controller never issued', async () => {
    const r = await t.request('POST', '/v1/probes/not-a-token/result', {
      token: key,
      body: { outcome: 'success', latencyMs: 10 },
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain('not valid');
  });
});
