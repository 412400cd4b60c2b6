/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
// Issue 14 end to end: nine SDK instances (createRecloser over real HTTP) in three regions against
// the real controller (real Postgres and Redis). The provider is answered in-process: each call an
// instance lets out is recorded with the outcome its region and credential would get, through the
// SDK's own allow/record. A credential's 401s mark only that credential (in every instance; nothing
// opens at the controller); a region's network fault opens only that region: its instances'
// breakers, and its regional verdict, while the group's breaker and the other regions stay closed.
import { createRecloser, type Recloser } from '@recloser/client';
import type { Outcome } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 250;
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const PER_REGION = 3;
const LOCAL = { mode: 'window', windowTicks: 4, minWindowAttempts: 3, failureRateThreshold: 0.8 } as const;

let t: TestApp;
let baseUrl: string;
const fleets: Recloser[] = [];

beforeAll(async () => {
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1500',
  });
  baseUrl = await t.listen();
});

afterAll(async () => {
  await Promise.all(fleets.map((f) => f.close()));
  await t?.close();
});

/** Nine instances of `group`, three per region, each running `calls` rounds of one call every 50 ms. */
async function runFleet(
  group: string,
  dependency: string,
  answer: (region: string, credentialId: string) => Outcome,
  rounds: number,
) {
  const { key } = await createFleetKey(t, [group]);
  const instances = REGIONS.flatMap((region) =>
    Array.from({ length: PER_REGION }, (_, i) => {
      const recloser = createRecloser({
        url: baseUrl,
        key,
        instanceId: `${region}-${i}`,
        group,
        region,
        heartbeatIntervalMs: INTERVAL_MS,
      });
      fleets.push(recloser);
      return { region, recloser, breaker: recloser.breaker(dependency, { local: LOCAL }) };
    }),
  );
  await Promise.all(
    instances.map(async ({ region, breaker }) => {
      for (let n = 0; n < rounds; n++) {
        const credentialId = breaker.pickCredential(['key-a', 'key-b']);
        if (credentialId !== null && breaker.allowWith(credentialId)) {
          breaker.record(answer(region, credentialId), {
            latencyMs: 5,
            labels: { region, endpoint: `${region}-1`, credentialId },
          });
        }
        await sleep(50);
      }
    }),
  );
  return { key, instances };
}

const breakerOf = async (key: string, group: string, dependency: string) => {
  const res = await t.request('GET', `/v1/breakers?group=${group}`, { token: key });
  expect(res.status).toBe(200);
  return res.body.breakers.find((b: any) => b.dependency === dependency);
};

describe('three regions of SDK instances against the real controller', () => {
  it('a bad credential marks only that credential: no breaker opens, calls move to the good one', async () => {
    const group = 'cred-fleet';
    const { key, instances } = await runFleet(
      group,
      'llm',
      (_r, cred) => (cred === 'key-a' ? 'auth' : 'success'),
      30,
    );
    for (const { breaker } of instances) {
      expect(breaker.credentialKnownBad('key-a')).toBe(true);
      expect(breaker.credentialKnownBad('key-b')).toBe(false);
      expect(breaker.state).toBe('closed');
    }
    const b = await pollUntil(
      () => breakerOf(key, group, 'llm'),
      (x) => x?.health?.pool.live === REGIONS.length * PER_REGION,
      { attempts: 40, everyMs: 100 },
    );
    expect(b.state).toBe('closed');
    expect(b.regions.map((r: any) => r.verdict)).toEqual(['closed', 'closed', 'closed']);
  });

  it('a region’s network fault opens that region’s breaker only; it pauses only that region and recovers to closed', async () => {
    const group = 'region-fleet';
    const dependency = 'regional-llm';
    const put = await t.admin('PUT', '/v1/admin/pools/regional-pool', {
      dependencies: [dependency],
      probe: { concurrency: 1, ratePerSec: 5, leaseTtlMs: 3000, cooldownMs: 1000, probesToPass: 2 },
      capacity: { standard: { ratePerSec: 200, concurrency: 50 } },
      ramp: {
        steps: [0.5, 1.0],
        dwellMs: 500,
        minSample: 3,
        classOrder: ['standard'],
        gates: {
          minSuccessRate: 0.9,
          maxLatencyP95Ms: 2000,
          maxTtftP95Ms: 2000,
          maxQueueAgeMs: 5000,
          max429Rate: 0.05,
        },
      },
    });
    expect(put.status).toBe(200);
    let faulty = true;
    let running = true;
    const { key } = await createFleetKey(t, [group]);
    const instances = REGIONS.flatMap((region) =>
      Array.from({ length: PER_REGION }, (_, i) => {
        const recloser = createRecloser({
          url: baseUrl,
          key,
          instanceId: `${region}-${i}`,
          group,
          region,
          heartbeatIntervalMs: INTERVAL_MS,
        });
        fleets.push(recloser);
        return { region, breaker: recloser.breaker(dependency, { local: LOCAL }) };
      }),
    );
    // every instance calls every 50 ms (bounded: at most 1200 rounds, ~60 s); eu-west's calls fail
    // with network errors while `faulty`
    const loops = instances.map(async ({ region, breaker }) => {
      for (let n = 0; running && n < 1200; n++) {
        if (breaker.allow())
          breaker.record(faulty && region === 'eu-west' ? 'network' : 'success', {
            latencyMs: 5,
            labels: { region },
          });
        await sleep(50);
      }
    });
    try {
      const list = async (): Promise<any[]> => {
        const res = await t.request('GET', `/v1/breakers?group=${group}`, { token: key });
        expect(res.status).toBe(200);
        return res.body.breakers.filter((b: any) => b.dependency === dependency);
      };
      const regional = (bs: any[]) => bs.find((b: any) => b.region === 'eu-west');
      const whole = (bs: any[]) => bs.find((b: any) => b.region === null);

      // the region breaker opens (after the learning period); the group's breaker stays closed
      const opened = await pollUntil(list, (bs) => regional(bs)?.state === 'open', {
        attempts: 80,
        everyMs: 100,
      });
      expect(regional(opened)?.state).toBe('open');
      expect(whole(opened)?.state).toBe('closed');
      expect(opened.filter((b: any) => b.region !== null).map((b: any) => b.region)).toEqual(['eu-west']);
      const regionId = regional(opened).breakerId;

      // only eu-west's instances follow it: paused; the others stay closed and call
      const paused = await pollUntil(
        async () => instances.map(({ region, breaker }) => [region, breaker.state]),
        (states) => states.every(([r, s]) => (r === 'eu-west' ? s === 'paused' : s === 'closed')),
        { attempts: 40, everyMs: 100 },
      );
      for (const [region, state] of paused)
        expect([region, state]).toEqual([region, region === 'eu-west' ? 'paused' : 'closed']);

      // eu-west's plans carry a shift: route() sends a call to another region within its rate;
      // the other regions' instances stay home. The shift is planned from the demand eu-west's
      // heartbeats report (at most once a second), and a new receiver's bucket starts with a random
      // part of one token: the first move may take a few seconds
      const euWest = instances.find((i) => i.region === 'eu-west')!.breaker;
      const routed = await pollUntil(
        async () => euWest.route(['eu-west', 'us-east', 'ap-south']),
        (r) => r !== null,
        { attempts: 80, everyMs: 100 },
      );
      expect(['us-east', 'ap-south']).toContain(routed);
      for (const { region, breaker } of instances.filter((i) => i.region !== 'eu-west'))
        expect(breaker.route(REGIONS)).toBe(region);

      // the transition is in the hash-chained log like any other, with the regional figures
      const log = async (): Promise<any[]> => {
        const { body } = await t.admin('GET', `/v1/admin/transitions?breakerId=${regionId}`);
        const rows: any[] = Array.isArray(body) ? body : body.transitions;
        return [...rows].sort((a, b) => a.seq - b.seq);
      };
      const first = (await log())[0];
      expect([first.from, first.to, first.actor]).toEqual(['closed', 'open', 'quorum']);
      expect(first.figures.regional.region).toBe('eu-west');
      // the error rates of the last heartbeat windows (a locally open instance makes no attempts)
      expect(first.figures.regional.regionErrorRate).toBeGreaterThanOrEqual(0);
      expect(first.figures.regional.poolErrorRate).toBeLessThanOrEqual(0.1);
      expect(first.figures.quorum).toMatchObject({ open: 3, live: 3, threshold: 2 });

      // the region heals: its breaker probes (the pool's budget), ramps and closes
      faulty = false;
      const closed = await pollUntil(list, (bs) => regional(bs)?.state === 'closed', {
        attempts: 300,
        everyMs: 100,
      });
      const story = (await log()).map((tr: any) => `${tr.from}->${tr.to}`);
      expect(regional(closed)?.state, story.join(' ')).toBe('closed');
      expect(whole(closed)?.state).toBe('closed');
      expect(story).toContain('open->probing');
      expect(story).toContain('probing->ramping');
      expect(story.at(-1)).toBe('ramping->closed');
      // never a reopen once the ramp began (a probe sent while the fault was still on may fail and
      // reopen: the cooldown is 1 s and the test heals the region only after its checks above), and
      // the group's breaker never moved
      expect(story.slice(story.indexOf('probing->ramping')).filter((s) => s.endsWith('->open'))).toEqual([]);
      const groupLog = await t.admin('GET', `/v1/admin/transitions?breakerId=${whole(closed).breakerId}`);
      const groupRows: any[] = Array.isArray(groupLog.body) ? groupLog.body : groupLog.body.transitions;
      expect(groupRows).toEqual([]);

      // after the close eu-west follows the group's breaker again: every instance closed
      const after = await pollUntil(
        async () => instances.map(({ breaker }) => breaker.state),
        (states) => states.every((s) => s === 'closed'),
        { attempts: 40, everyMs: 100 },
      );
      expect(after).toEqual(instances.map(() => 'closed'));
    } finally {
      running = false;
      await Promise.all(loops);
    }
  });
});
