// The ramp's allowances are divided once per allowance period and shared: on the real app (real
// Postgres and Redis), heartbeats of one period — in one replica and in a second one on its own Redis
// connection — all get their shares from a single core division whose sum fits the step's budget,
// and the fleet's live demand is read once per period, not once per heartbeat.
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { ControlPlane, type BreakerRecord } from '@recloser/control';
import { mathRng } from '@recloser/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BreakerStateService } from '../../apps/controller/src/breakers/breaker-state.service.js';
import { VerdictsRepository } from '../../apps/controller/src/breakers/verdicts.repository.js';
import { ControllerConfig } from '../../apps/controller/src/config/controller-config.js';
import { CONTROL_CLOCK } from '../../apps/controller/src/control/clock.js';
import { RedisWatchStore } from '../../apps/controller/src/control/watch.store.js';
import { FleetGroupsService } from '../../apps/controller/src/groups/fleet-groups.service.js';
import { OutboxService } from '../../apps/controller/src/outbox/outbox.service.js';
import { PoolsService } from '../../apps/controller/src/pools/pools.service.js';
import { ProbeLeaseStore } from '../../apps/controller/src/probes/probe-lease.store.js';
import { AllowanceDivisionCache } from '../../apps/controller/src/ramp/allowance-division.cache.js';
import { RampEvidenceStore } from '../../apps/controller/src/ramp/ramp-evidence.store.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import { rampPool } from './support/ramp-pool.js';

let t: TestApp;
let key: string;
let secondConnection: Redis;
const group = 'division-group';
const dependency = 'division-llm';
const instances = ['a', 'b', 'c', 'd'];
// step 0 of the pool below: half of 40 calls/s and of 8 calls in flight
const STEP0 = { ratePerSec: 20, concurrency: 4 };
// long enough that the verdicts stay live however slowly the test runs; also the allowance period
const TTL_MS = 60_000;

beforeAll(async () => {
  t = await bootTestApp({ RECLOSER_HEARTBEAT_TTL_MS: String(TTL_MS) });
  key = (await createFleetKey(t, [group])).key;
  const put = await t.admin('PUT', '/v1/admin/pools/division-pool', rampPool(dependency));
  expect(put.status).toBe(200);
  secondConnection = new Redis(t.env.REDIS_URL!);
});

afterAll(async () => {
  secondConnection?.disconnect();
  await t?.close();
});

describe('allowance division per period', () => {
  it("gives every heartbeat of a period, on two replicas, shares of one division and reads live demand once (spy counts the presence store's liveDemand)", async () => {
    // the instances report their demand (healthy, so the breaker stays CLOSED: the plans below are
    // asked for a RAMPING view of it directly, as the heartbeat service would after a transition)
    const beats = await Promise.all(
      instances.map((instanceId) =>
        heartbeat(t, key, {
          instanceId,
          group,
          breakers: [verdict(dependency, 'closed', { demand: { standard: 10 } })],
        }),
      ),
    );
    expect(beats.every((b) => b.status === 200)).toBe(true);
    const breakerId = beats[0]!.body.breakers[0].breakerId as string;

    const get = <T>(type: new (...args: any[]) => T): T => t.app.get(type, { strict: false });
    const replicaA = get(ControlPlane);
    const presence = get(VerdictsRepository);
    const config = get(ControllerConfig);
    // a second replica: its own control plane and division cache on its own Redis connection, same Redis
    const replicaB = new ControlPlane(
      {
        presence,
        breakers: get(BreakerStateService),
        groups: get(FleetGroupsService),
        pools: get(PoolsService),
        leases: get(ProbeLeaseStore),
        evidence: get(RampEvidenceStore),
        divisions: new AllowanceDivisionCache(secondConnection, config),
        watches: get(RedisWatchStore),
        events: get(OutboxService),
        clock: t.app.get(CONTROL_CLOCK, { strict: false }),
        rng: mathRng,
      },
      replicaA.settings,
    );
    const reads = vi.spyOn(presence, 'liveDemand');

    const stored = (await get(BreakerStateService).get(breakerId))!;
    // the breaker as a heartbeat would see it right after it started ramping
    const breaker: BreakerRecord = {
      ...stored,
      globalState: { ...stored.globalState, state: 'ramping', epoch: 1, step: 0, stepSince: null },
    };
    const pool = await get(PoolsService).resolve(dependency);
    const planFor = (plane: ControlPlane, instanceId: string, at: number) =>
      plane.recoveryPlan(breaker, pool, instanceId, own(), at);
    const own = () => verdict(dependency, 'closed', { demand: { standard: 10 } }) as any;
    // one period: every heartbeat carries a time inside the same allowance period
    const at = Math.floor(Date.now() / TTL_MS) * TTL_MS + 1;
    // replica A's heartbeats arrive together (they share the one division A makes), then replica B's
    // (it finds the stored division). Replicas racing at a period's start would each divide once, but
    // only the first stored division is handed out: every share is read back from Redis.
    const onA = await Promise.all([planFor(replicaA, 'a', at), planFor(replicaA, 'b', at + 10)]);
    const onB = await Promise.all([planFor(replicaB, 'c', at + 20), planFor(replicaB, 'd', at + 30)]);
    const plans = [...onA, ...onB];
    // one more heartbeat of the period on each replica, after the division is stored
    const again = await Promise.all([planFor(replicaB, 'a', at + 40), planFor(replicaA, 'c', at + 50)]);
    // an instance that appeared after the division waits for the next period
    const late = await planFor(replicaA, 'late', at + 60);

    expect(reads).toHaveBeenCalledTimes(1);
    const shares = plans.map((p) => p.allowance!.standard!);
    expect(shares.every((s) => s.ratePerSec > 0 && s.concurrency >= 1)).toBe(true);
    expect(shares.reduce((s, a) => s + a.ratePerSec, 0)).toBeLessThanOrEqual(STEP0.ratePerSec + 1e-9);
    expect(shares.reduce((s, a) => s + a.concurrency, 0)).toBeLessThanOrEqual(STEP0.concurrency);
    // the same entries on either replica: one division, not one per replica
    expect(again[0].allowance).toEqual(plans[0]!.allowance);
    expect(again[1].allowance).toEqual(plans[2]!.allowance);
    expect(late.allowance).toEqual({});

    // the next period divides again (once), and its first heartbeat's own demand is in that division
    const next = await planFor(replicaB, 'late', at + TTL_MS);
    expect(reads).toHaveBeenCalledTimes(2);
    expect(next.allowance!.standard!.ratePerSec).toBeGreaterThan(0);
    reads.mockRestore();
  });
});
