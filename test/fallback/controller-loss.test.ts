/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
// The controller process is SIGKILLed in the middle of a ramp while 100 real SDK instances in three
// regions call a loopback provider through it; 8 s later a new controller process starts on the same
// Postgres and Redis. While it is gone the instances run FALLBACK: the provider sees no more from a
// region than its preallocated share, no instance calls faster than its last allowance (plus, for a
// probe owner, its part of the share), and once control returns the ramp completes; the controller
// records region.fallback for each region. Bounded in count and time.
import {
  createRecloser,
  HttpTransport,
  type ProbeLeaseRequest,
  type Recloser,
  type Transport,
} from '@recloser/client';
import type { BreakerPlan, HeartbeatRequest, ProbeResultRequest } from '@recloser/core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type ControllerProcess } from '../../apps/simulator/src/live/ControllerProcess.js';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { breakerState, fleetKey, putPool } from '../recovery/support/fleet.js';
import { ADMIN_TOKEN, startReplicas, type ReplicaSet } from '../recovery/support/replicas.js';

const INTERVAL_MS = 500;
const TTL_MS = 2000;
// long enough that each region's owners, paced from nothing after the last allowance, probe within
// the quiet window for sure (5.5 s at 2/s a region), not only on average
const LOSS_MS = 8000;
const GROUP = 'fallback-fleet';
const DEPENDENCY = 'fallback-llm';
const INSTANCES = 100;
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
/** the pool's fallback budget: 2/s per region, 1/s per probe owner */
const FALLBACK = { ratePerSec: 6, ownersPerRegion: 2 };
const ENV = {
  RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
  RECLOSER_HEARTBEAT_TTL_MS: String(TTL_MS),
};

/** The fleet's way to the controller (its load balancer): pointed at the new process once it is up. */
class Switchboard implements Transport {
  private http: HttpTransport;
  constructor(
    url: string,
    private readonly key: string,
  ) {
    this.http = new HttpTransport({ url, key, timeoutMs: 1000 });
  }
  point(url: string): void {
    this.http = new HttpTransport({ url, key: this.key, timeoutMs: 1000 });
  }
  heartbeat(req: HeartbeatRequest, signal?: AbortSignal) {
    return this.http.heartbeat(req, signal);
  }
  probeResult(token: string, body: ProbeResultRequest, signal?: AbortSignal) {
    return this.http.probeResult(token, body, signal);
  }
  lease(req: ProbeLeaseRequest, signal?: AbortSignal) {
    return this.http.lease(req, signal);
  }
}

let set: ReplicaSet;
let restarted: ControllerProcess | null = null;
let provider: FakeProvider;
let fleet: Recloser[] = [];
let loops: Promise<void>[] = [];
let running = true;
let switchboard: Switchboard;
let key: string;
/** each instance's plans for the dependency, with the time they arrived */
const plans = new Map<string, { at: number; plan: BreakerPlan }[]>();
const regionOf = (i: number) => REGIONS[i % REGIONS.length]!;

beforeAll(async () => {
  set = await startReplicas(1, ENV);
  const base = set.replicas[0]!.url;
  provider = await startFakeProvider({ kind: 'up' });
  await putPool(base, 'fallback-pool', {
    dependencies: [DEPENDENCY],
    probe: { concurrency: 1, ratePerSec: 2, leaseTtlMs: 2000, cooldownMs: 500, probesToPass: 2 },
    capacity: { standard: { ratePerSec: 200, concurrency: 100 } },
    ramp: {
      steps: [0.1, 0.5, 1.0],
      dwellMs: 1000,
      minSample: 5,
      // loopback latency on a shared machine says nothing about this provider: gate on failures only
      latencyInflation: 100,
      classOrder: ['standard'],
      gates: {
        minSuccessRate: 0.9,
        maxLatencyP95Ms: 10_000,
        maxTtftP95Ms: 10_000,
        maxQueueAgeMs: 5000,
        max429Rate: 0.05,
      },
    },
    fallback: FALLBACK,
  });
  key = await fleetKey(base, [GROUP]);
  switchboard = new Switchboard(base, key);
  fleet = Array.from({ length: INSTANCES }, (_, i) =>
    createRecloser({
      transport: switchboard,
      instanceId: `w${i}`,
      group: GROUP,
      region: regionOf(i),
      heartbeatIntervalMs: INTERVAL_MS,
    }),
  );
  // each instance wants 2 calls/s
  loops = fleet.map(async (recloser, i) => {
    const breaker = recloser.breaker(DEPENDENCY, {
      local: { mode: 'window', windowTicks: 4, minWindowAttempts: 2, failureRateThreshold: 0.8 },
    });
    breaker.onPlan((plan) => {
      const mine = plans.get(`w${i}`) ?? [];
      mine.push({ at: Date.now(), plan });
      plans.set(`w${i}`, mine.slice(-20));
    });
    await sleep((i * 500) / INSTANCES);
    for (let n = 0; running && n < 300; n++) {
      await breaker
        .execute((signal) =>
          fetch(provider.url, { headers: { 'x-instance-id': `w${i}` }, ...(signal ? { signal } : {}) }),
        )
        .catch(() => undefined);
      await sleep(500);
    }
  });
});

afterAll(async () => {
  running = false;
  await Promise.all(loops);
  await Promise.all(fleet.map((r) => r.close()));
  await provider?.close();
  await restarted?.stop();
  await set?.stop();
});

const state = () => breakerState(restarted?.url ?? set.replicas[0]!.url, key, GROUP);

describe('the controller killed in the middle of a ramp (100 SDK instances, 3 regions)', () => {
  it('keeps attempts within the regional shares, raises no rate, completes the ramp after a restart, and records region.fallback', async () => {
    expect(await pollUntil(state, (s) => s === 'closed', { attempts: 60, everyMs: 100 })).toBe('closed');
    await sleep(TTL_MS); // every instance heard from
    provider.setMode({ kind: 'down' });
    expect(await pollUntil(state, (s) => s === 'open', { attempts: 100, everyMs: 100 })).toBe('open');
    provider.setMode({ kind: 'up' });
    expect(await pollUntil(state, (s) => s === 'ramping', { attempts: 150, everyMs: 100 })).toBe('ramping');
    await sleep(500); // mid-ramp: allowances are out

    await set.replicas[0]!.stop('SIGKILL');
    const killedAt = Date.now();
    await sleep(LOSS_MS);
    const restartAt = Date.now();

    // while it was gone: per region, never more than the share accrued since the loss once every
    // allowance granted before it ran out (one TTL, and a heartbeat for its last answer in flight)
    const quietFrom = killedAt + TTL_MS + INTERVAL_MS;
    const during = provider.callsSince(killedAt).filter((c) => c.at <= restartAt);
    for (const region of REGIONS) {
      const share = FALLBACK.ratePerSec / REGIONS.length;
      const inRegion = during.filter(
        (c) => c.at >= quietFrom && regionOf(Number(c.instanceId.slice(1))) === region,
      );
      expect(inRegion.length, region).toBeLessThanOrEqual(share * ((restartAt - killedAt) / 1000));
      // nobody is isolated for good: the region's owners probed
      expect(inRegion.length, region).toBeGreaterThan(0);
    }
    // no instance called faster than the allowances it held (each valid for its validForMs, with the
    // one announced as `next` taking over at its inMs) plus, as a probe owner, its part of the region
    // share (1/s, paced from nothing)
    for (let i = 0; i < INSTANCES; i++) {
      const id = `w${i}`;
      const held = (plans.get(id) ?? []).filter((p) => p.at >= killedAt - TTL_MS - INTERVAL_MS);
      const mine = during.filter((c) => c.instanceId === id).length;
      let fromAllowance = 0;
      let asOwner = 0;
      for (const { plan } of held) {
        // the allowance's classes until `next` replaces them (if it does), then next's, up to validity
        const allowance = plan.allowance;
        const validMs = allowance?.validForMs ?? TTL_MS;
        const switchMs = Math.min(allowance?.next?.inMs ?? validMs, validMs);
        const grant = (a: { burst: number; ratePerSec: number } | undefined, ms: number) =>
          a ? a.burst + a.ratePerSec * (Math.max(0, ms) / 1000) : 0;
        fromAllowance = Math.max(
          fromAllowance,
          grant(allowance?.classes.standard, switchMs) +
            grant(allowance?.next?.classes.standard, validMs - switchMs),
        );
        const f = plan.fallback;
        if (f?.probeOwner) asOwner = (f.regionShare.ratePerSec / (f.owners ?? 2)) * (LOSS_MS / 1000) + 1;
      }
      expect(
        mine,
        `${id} ${JSON.stringify(held.map((p) => [p.at - killedAt, p.plan.allowance, p.plan.fallback]))}`,
      ).toBeLessThanOrEqual(Math.floor(fromAllowance + asOwner));
    }

    // a new controller process on the same database and Redis; the fleet's way to it switches over
    restarted = await startController({
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: set.databaseUrl,
        REDIS_URL: 'redis://127.0.0.1:6379',
        RECLOSER_ADMIN_TOKEN: ADMIN_TOKEN,
        ...ENV,
      },
      readyTimeoutMs: 30_000,
    });
    switchboard.point(restarted.url);
    const closed = await pollUntil(state, (s) => s === 'closed', { attempts: 60, everyMs: 500 });
    expect(closed).toBe('closed');

    // the alert-worthy event: one per region, with the spell's duration
    const db = new pg.Client({ connectionString: set.databaseUrl });
    await db.connect();
    try {
      const rows = await pollUntil(
        async () =>
          (await db.query(`SELECT data FROM outbox_events WHERE type = 'region.fallback'`)).rows as any[],
        (r) => r.length >= REGIONS.length,
        { attempts: 50, everyMs: 100 },
      );
      expect(rows.map((r) => r.data.region).sort()).toEqual([...REGIONS].sort());
      for (const r of rows) expect(r.data.durationMs).toBeGreaterThanOrEqual(LOSS_MS / 2);
    } finally {
      await db.end();
    }
  }, 60_000);
});
