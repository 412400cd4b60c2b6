// Three controller replicas (separate processes) on one database and one Redis: 1,000 concurrent
// lease requests spread over them never get more live probe tokens than the pool's concurrency,
// and heartbeat plans of designated probers draw on that same budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verdict } from '../support/fleet.js';
import { driveToProbing, fleetKey, present, putPool } from './support/fleet.js';
import { call, startReplicas, type ReplicaSet } from './support/replicas.js';

const CONCURRENCY = 3;
let set: ReplicaSet;
let bases: string[];

beforeAll(async () => {
  // a 5 s TTL: each wave of storm instances below stays live while the wave's leases are asked for
  set = await startReplicas(3, { RECLOSER_HEARTBEAT_TTL_MS: '5000' });
  bases = set.replicas.map((r) => r.url);
});

afterAll(async () => {
  await set?.stop();
});

describe('probe budget across three replicas', () => {
  it('grants at most the pool concurrency to 1,000 concurrent lease requests plus designated heartbeats', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const group = `budget-${tag}`;
    const dependency = `llm-${tag}`;
    const key = await fleetKey(bases[0]!, [group]);
    await putPool(bases[1]!, `pool-${tag}`, {
      dependencies: [dependency],
      probe: { concurrency: CONCURRENCY, ratePerSec: 1000, leaseTtlMs: 30000, cooldownMs: 200 },
    });
    const fleet = Array.from({ length: 6 }, (_, i) => `w${i}`);
    await driveToProbing(bases, key, group, dependency, fleet);

    // 1,000 distinct live instances (tokens go to live instances of the group only), in waves of
    // 250: each wave heartbeats, then all of it asks for a lease at once across the replicas
    const storm: Awaited<ReturnType<typeof call>>[] = [];
    for (let wave = 0; wave < 4; wave++) {
      const ids = Array.from({ length: 250 }, (_, i) => `storm-${wave * 250 + i}`);
      await Promise.all(ids.map((id, i) => present(bases[i % 3]!, key, group, dependency, id)));
      storm.push(
        ...(await Promise.all(
          ids.map((instanceId, i) =>
            call(
              bases[i % 3]!,
              'POST',
              '/v1/probes/lease',
              { instanceId, group, dependency, class: 'standard' },
              key,
            ),
          ),
        )),
      );
    }
    // heartbeats that report demand make their senders candidates for designation
    const planned = await Promise.all(
      fleet.map((instanceId, i) =>
        call(
          bases[i % 3]!,
          'POST',
          '/v1/heartbeats',
          {
            instanceId,
            group,
            region: 'eu-west',
            breakers: [verdict(dependency, 'open', { demand: { standard: 1 } })],
          },
          key,
        ),
      ),
    );

    const statuses = new Map<number, number>();
    for (const r of storm) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    expect(
      [...statuses.keys()].every((s) => s === 201 || s === 429),
      JSON.stringify([...statuses]),
    ).toBe(true);
    const refused = storm.filter((r) => r.status === 429);
    expect(refused.every((r) => Number(r.headers.get('retry-after')) >= 1 && r.json.retryAfterMs >= 1)).toBe(
      true,
    );

    const tokens = new Set<string>();
    const fencings = new Set<number>();
    for (const r of storm.filter((s) => s.status === 201)) {
      tokens.add(r.json.token);
      fencings.add(r.json.fencing);
    }
    for (const r of planned) {
      expect(r.status).toBe(200);
      const probe = r.json.breakers[0].probe;
      if (probe) {
        tokens.add(probe.token);
        fencings.add(probe.fencing);
      }
    }
    expect(tokens.size).toBeGreaterThanOrEqual(1);
    expect(tokens.size).toBeLessThanOrEqual(CONCURRENCY);
    expect(fencings.size).toBe(tokens.size);
  });
});
