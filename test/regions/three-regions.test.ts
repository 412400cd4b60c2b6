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

  it('a region’s network fault opens only that region; the group and the other regions stay closed', async () => {
    const group = 'region-fleet';
    const { key, instances } = await runFleet(
      group,
      'llm',
      (region) => (region === 'eu-west' ? 'network' : 'success'),
      40,
    );
    for (const { region, breaker } of instances)
      expect([region, breaker.state]).toEqual([region, region === 'eu-west' ? 'local_open' : 'closed']);
    const b = await pollUntil(
      () => breakerOf(key, group, 'llm'),
      (x) => x?.regions?.find((r: any) => r.region === 'eu-west')?.verdict === 'region_open',
      { attempts: 40, everyMs: 100 },
    );
    expect(b.state).toBe('closed');
    expect(Object.fromEntries(b.regions.map((r: any) => [r.region, r.verdict]))).toEqual({
      'ap-south': 'closed',
      'eu-west': 'region_open',
      'us-east': 'closed',
    });
    expect(b.regions.find((r: any) => r.region === 'eu-west').quorum).toEqual({
      open: 3,
      live: 3,
      threshold: 2,
    });
  });
});
