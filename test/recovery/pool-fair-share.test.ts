// Two groups draw on one provider pool (the same dependency) and both recover at once. Group A
// hammers POST /v1/probes/lease first, each time with a fresh instance id (heartbeating first, so
// it is live): it still holds no more than its fair share of the pool's probe budget, and group B,
// asking after it, gets its own token. An id that never heartbeated gets no token at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const DEPENDENCY = 'shared-llm';
const BUDGET = 2;
let t: TestApp;
const keys: Record<'A' | 'B', string> = { A: '', B: '' };
const group = (g: 'A' | 'B') => `fair-${g}`;
const beat = (g: 'A' | 'B', instanceId: string, state: string) =>
  heartbeat(t, keys[g], {
    instanceId,
    group: group(g),
    // no demand: nobody is designated, so every token below comes from the lease endpoint
    breakers: [verdict(DEPENDENCY, state)],
  });
const lease = (g: 'A' | 'B', instanceId: string) =>
  t.request('POST', '/v1/probes/lease', {
    token: keys[g],
    body: { instanceId, group: group(g), dependency: DEPENDENCY },
  });

beforeAll(async () => {
  t = await bootTestApp();
  keys.A = (await createFleetKey(t, [group('A')])).key;
  keys.B = (await createFleetKey(t, [group('B')])).key;
  const put = await t.admin('PUT', '/v1/admin/pools/shared-pool', {
    dependencies: [DEPENDENCY],
    probe: { concurrency: BUDGET, ratePerSec: 100, leaseTtlMs: 30_000, cooldownMs: 100, probesToPass: 2 },
  });
  expect(put.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

describe('a pool shared by two groups', () => {
  it('one group leasing with fresh instance ids cannot take the other group’s share', async () => {
    const states = async () => {
      const [a, b] = await Promise.all(
        (['A', 'B'] as const).map((g) =>
          t.request('GET', `/v1/breakers?group=${group(g)}`, { token: keys[g] }),
        ),
      );
      return [a!.body.breakers[0]?.state, b!.body.breakers[0]?.state];
    };
    // both groups' fleets fail: each group's quorum opens its own breaker, the cooldown passes
    for (let i = 0; i < 100; i++) {
      await Promise.all(
        (['A', 'B'] as const).flatMap((g) => ['x', 'y', 'z'].map((id) => beat(g, id, 'open'))),
      );
      // A's lease after the cooldown starts its PROBING at once (B's waits for the lifecycle tick)
      expect((await lease('A', 'x')).status).toBeLessThan(500);
      const [a, b] = await states();
      if (a === 'probing' && b === 'probing') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await states()).toEqual(['probing', 'probing']);
    // x of A may hold a token from the loop above: part of A's share

    // an id that never heartbeated is not a live instance of the group
    const ghost = await lease('A', 'ghost');
    expect(ghost.status).toBe(409);
    expect(ghost.body.message).toContain('live');

    const aTokens = new Set<string>();
    const aX = await lease('A', 'x');
    if (aX.status === 201) aTokens.add(aX.body.token);
    let aFair = 0;
    for (let n = 0; n < 30; n++) {
      const id = `fresh-${n}`;
      expect((await beat('A', id, 'paused')).status).toBe(200);
      const r = await lease('A', id);
      expect([201, 429]).toContain(r.status);
      if (r.status === 201) aTokens.add(r.body.token);
      else if (r.body.reason === 'fair_share') aFair += 1;
    }
    expect((await beat('B', 'y', 'paused')).status).toBe(200); // still live after A's storm
    const b = await lease('B', 'y');
    // A took at most its share (the pool's budget split between the two probing groups) ...
    expect(aTokens.size).toBeLessThanOrEqual(BUDGET / 2);
    expect(aFair).toBeGreaterThan(0);
    // ... and B has its own
    expect(b.status, JSON.stringify(b.body)).toBe(201);
  });
});
