// The spine end to end, the way a fleet uses it: 20 real SDK instances in this process talk HTTP to
// the real controller (in-process, real Postgres, Redis and BullMQ) and call a fake provider on
// loopback. Every loop here is bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { createServer, type AddressInfo } from 'node:net';
import { createRecloser, isBreakerOpenError, type Recloser } from '@recloser/client';
import { DEFAULT_QUORUM, quorumThreshold } from '@recloser/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 200;
const DEPENDENCY = 'llm-provider';

let t: TestApp;
let baseUrl: string;
let provider: FakeProvider;

beforeAll(async () => {
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1000',
  });
  baseUrl = await t.listen();
  provider = await startFakeProvider({ kind: 'up' });
});

afterAll(async () => {
  await provider?.close();
  await t?.close();
});

/** A fleet of SDK instances, each calling `target(i)` every 40 ms until stopped. */
interface Fleet {
  ids: string[];
  instances: Recloser[];
  refusals: number[];
  stop(): Promise<void>;
}

async function startFleet(group: string, n: number, target: (i: number) => string): Promise<Fleet> {
  const { key } = await createFleetKey(t, [group]);
  const ids = Array.from({ length: n }, (_, i) => `${group}-w${i}`);
  const instances = ids.map((instanceId) =>
    createRecloser({
      url: baseUrl,
      key,
      instanceId,
      group,
      region: 'eu-west',
      heartbeatIntervalMs: INTERVAL_MS,
    }),
  );
  const refusals = ids.map(() => 0);
  let running = true;
  const loops = instances.map(async (recloser, i) => {
    const breaker = recloser.breaker(DEPENDENCY);
    // bounded: at most 60 s of calls even if a test forgets to stop the fleet
    for (let n = 0; running && n < 1500; n++) {
      try {
        await breaker.execute((signal) =>
          fetch(target(i), { headers: { 'x-instance-id': ids[i]! }, ...(signal ? { signal } : {}) }),
        );
      } catch (err) {
        if (isBreakerOpenError(err)) refusals[i]!++;
      }
      await sleep(40);
    }
  });
  return {
    ids,
    instances,
    refusals,
    async stop() {
      running = false;
      await Promise.all(loops);
      await Promise.all(instances.map((r) => r.close()));
    },
  };
}

/** A loopback port that was free a moment ago and is closed now. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function breakerOf(group: string): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return body.breakers.find((b: any) => b.group === group && b.dependency === DEPENDENCY);
}

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.stop();
  fleet = undefined;
  provider.setMode({ kind: 'up' });
});

describe('20 SDK instances against the real controller', () => {
  it('the provider dies: instances trip locally, the group opens by quorum, paused instances stop calling', async () => {
    const group = 'fleet-outage';
    fleet = await startFleet(group, 20, () => provider.url);
    // healthy traffic first, past the learning period
    const healthy = await pollUntil(
      () => breakerOf(group),
      (b) => b !== undefined && b.live === 20,
      { attempts: 60, everyMs: 100 },
    );
    expect(healthy.state).toBe('closed');
    expect(provider.calls.filter((c) => c.status === 200).length).toBeGreaterThan(0);

    provider.setMode({ kind: 'down' });
    const opened = await pollUntil(
      () => breakerOf(group),
      (b) => b.state === 'open',
      { attempts: 100, everyMs: 100 },
    );
    expect(opened.state).toBe('open');

    // the decision: quorum figures and the instances that formed it
    const detail = (await t.admin('GET', `/v1/admin/breakers/${opened.breakerId}`)).body;
    const open = detail.transitions.find((tr: any) => tr.to === 'open');
    expect(open.actor).toBe('quorum');
    // live may be 19 if one instance's beat was in flight at the moment of the decision
    const { live, open: openCount, threshold } = open.figures.quorum;
    expect(live).toBeGreaterThanOrEqual(18);
    expect(live).toBeLessThanOrEqual(20);
    expect(threshold).toBe(quorumThreshold(live, DEFAULT_QUORUM));
    expect(openCount).toBeGreaterThanOrEqual(threshold);
    expect(open.formedBy.length).toBe(openCount);

    // at most one interval after the K-th open verdict was first seen (the controller's own clock);
    // the bound is loose (2 intervals + 1 s) so a loaded machine does not flake, yet a missing
    // evaluation would never meet it
    const openSince = detail.instances
      .map((i: any) => (i.openSince ? Date.parse(i.openSince) : Number.NaN))
      .filter((x: number) => !Number.isNaN(x))
      .sort((a: number, b: number) => a - b);
    const kth = openSince[threshold - 1];
    expect(Date.parse(open.at) - kth).toBeLessThanOrEqual(2 * INTERVAL_MS + 1000);

    // once every instance has had a heartbeat round to learn the plan, the paused fleet is silent
    await pollUntil(
      async () => fleet!.instances.map((r) => r.breaker(DEPENDENCY).state),
      (states) => states.every((s) => s === 'paused'),
      { attempts: 50, everyMs: 100 },
    );
    const quietFrom = Date.now();
    await sleep(10 * INTERVAL_MS);
    expect(provider.callsSince(quietFrom)).toEqual([]);
    expect(fleet.refusals.every((n) => n > 0)).toBe(true);
  });

  it('one broken host opens locally, the group stays closed, the host shows as isolated and the rest keep calling', async () => {
    const group = 'fleet-bad-host';
    // instance 0 calls a loopback port nobody listens on: every call of its own fails with ECONNREFUSED
    const deadPort = `http://127.0.0.1:${await unusedPort()}`;
    fleet = await startFleet(group, 20, (i) => (i === 0 ? deadPort : provider.url));
    const broken = fleet.ids[0]!;

    const detail = await pollUntil(
      async () => {
        const b = await breakerOf(group);
        return b ? (await t.admin('GET', `/v1/admin/breakers/${b.breakerId}`)).body : undefined;
      },
      (d) => d !== undefined && d.isolated.some((x: any) => x.instanceId === broken),
      { attempts: 100, everyMs: 100 },
    );
    expect(detail.isolated.map((x: any) => x.instanceId)).toEqual([broken]);
    expect(detail.breaker.state).toBe('closed');
    expect(fleet.instances[0]!.breaker(DEPENDENCY).localState).not.toBe('closed');

    // the other 19 keep calling the provider while the broken host is open
    const from = Date.now();
    await sleep(5 * INTERVAL_MS);
    const healthyCallers = new Set(provider.callsSince(from).map((c) => c.instanceId));
    expect(healthyCallers.size).toBe(19);
    expect(healthyCallers.has(broken)).toBe(false);
    expect((await breakerOf(group)).state).toBe('closed');
  });
});
