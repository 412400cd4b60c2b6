// When an operator takes a breaker out of PROBING (force_open), the probe tokens it handed out are
// released at once, as a probe result that leaves PROBING does: a shared pool's slot frees for the
// other breaker, and the stale token's result answers 409 (real Postgres, Redis, in-process app).
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
const group = 'operator-probes';
const deps = ['shared-a', 'shared-b'];
const instances = ['a', 'b', 'c'];

beforeAll(async () => {
  t = await bootTestApp();
  key = (await createFleetKey(t, [group])).key;
  // one probe slot for both dependencies; a lease TTL far longer than the test, so only a release frees it
  const put = await t.admin('PUT', '/v1/admin/pools/shared-pool', {
    dependencies: deps,
    probe: { concurrency: 1, ratePerSec: 10, leaseTtlMs: 600_000, cooldownMs: 100, probesToPass: 2 },
  });
  expect(put.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

const beatAll = async () =>
  (
    await Promise.all(
      instances.map((instanceId) =>
        heartbeat(t, key, {
          instanceId,
          group,
          breakers: deps.map((d) => verdict(d, 'open', { demand: { standard: 10 } })),
        }),
      ),
    )
  ).flatMap((r) => r.body.breakers as any[]);

const lease = (dependency: string) =>
  t.request('POST', '/v1/probes/lease', { token: key, body: { instanceId: 'a', group, dependency } });

describe('operator action out of PROBING', () => {
  it('force_open releases the tokens it handed out: their result answers 409 and the pool slot is free', async () => {
    // quorum opens both breakers; the ramp tick ends their cooldown; the plans hand out the one slot
    const plans = await pollUntil(
      beatAll,
      (bs) =>
        deps.every((d) => bs.some((b) => b.dependency === d && b.global.state === 'probing')) &&
        bs.some((b) => b.probe),
      { attempts: 100, everyMs: 150 },
    );
    const withToken = plans.find((b) => b.probe)!;
    expect(withToken).toBeDefined();
    const held = withToken.dependency as string;
    const other = deps.find((d) => d !== held)!;
    const token = withToken.probe.token as string;

    // the slot is taken by the token of `held`: the other breaker of the pool is refused for concurrency
    const refused = await lease(other);
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe('concurrency');

    const forced = await t.admin('POST', `/v1/admin/breakers/${withToken.breakerId}/actions`, {
      action: 'force_open',
      reason: 'provider maintenance',
    });
    expect(forced.status).toBeLessThan(300);
    expect(forced.body.transitions[0]).toMatchObject({ from: 'probing', to: 'open', actor: 'operator' });

    const stale = await t.request('POST', `/v1/probes/${token}/result`, {
      token: key,
      body: { outcome: 'success', latencyMs: 40 },
    });
    expect(stale.status).toBe(409);

    const granted = await lease(other);
    expect(granted.status).toBe(201);
    expect(typeof granted.body.token).toBe('string');
  });
});
