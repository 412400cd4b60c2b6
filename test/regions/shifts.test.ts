/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
// Issue 14, shifts seen from real traffic, end to end: nine SDK instances (createRecloser over real
// HTTP) in three regions against the real controller (real Postgres, Redis, outbox and webhooks).
// eu-west's network path fails: its region breaker opens and its instances, paused, move calls with
// breaker.route() within the shift plan. Their heartbeats report routed rates; GET /v1/breakers
// shows them per receiving region against what the plan allows; a hand-made heartbeat (a fake
// router, not an SDK) moving far more than allowed makes its receiver shift_throttled; the shift's
// start and the throttling are delivered as webhooks; the start is a transparency-log leaf of the
// region breaker whose bundle verifies offline.
import { createRecloser } from '@recloser/client';
import { type Bundle, verifyBundle } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { runVerify } from '../../apps/controller/src/receipts/verify-cli.js';
import { type Receiver, startReceiver } from '../operators/support/receiver.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 250;
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const PER_REGION = 3;
const LOCAL = { mode: 'window', windowTicks: 4, minWindowAttempts: 3, failureRateThreshold: 0.8 } as const;
const GROUP = 'shift-fleet';
const DEPENDENCY = 'shifting-llm';

let t: TestApp;
let baseUrl: string;
let receiver: Receiver;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  t = await bootTestApp({
    RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
    RECLOSER_HEARTBEAT_TTL_MS: '1500',
    RECLOSER_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    RECLOSER_WEBHOOK_BACKOFF_MS: '100',
  });
  baseUrl = await t.listen();
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await t?.close();
  await receiver?.close();
});

const delivered = (type: string) =>
  receiver
    .accepted()
    .map((r) => JSON.parse(r.body) as any)
    .filter((b) => b.type === type && b.group === GROUP);

describe('shifts seen and judged from real traffic', () => {
  it('refuses bad routed rates with a 400 naming the field', async () => {
    const { key } = await createFleetKey(t, ['shift-hostile']);
    for (const [routed, message] of [
      [{ 'us-east': -1 }, /routed\.us-east must be a non-negative number/],
      [{ 'us east': 1 }, /routed has an invalid region name/],
      [[1, 2], /routed must be an object/],
    ] as const) {
      const res = await heartbeat(t, key, {
        instanceId: 'h0',
        group: 'shift-hostile',
        breakers: [verdict('dep', 'closed', { routed })],
      });
      expect(res.status, JSON.stringify(routed)).toBe(400);
      expect(res.body.message).toEqual(expect.stringMatching(message));
    }
  });

  it('routed rates arrive per receiving region; exceeding the plan is shift_throttled; webhooks and a log leaf follow', async () => {
    const sub = await t.admin('POST', '/v1/admin/webhooks', {
      url: receiver.url,
      secret: 'shift-webhook-secret',
      events: ['region.shift', 'region.shift_throttled'],
    });
    expect(sub.status).toBe(201);
    const put = await t.admin('PUT', '/v1/admin/pools/shift-pool', {
      dependencies: [DEPENDENCY],
      probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 3000, cooldownMs: 60_000, probesToPass: 2 },
      capacity: { standard: { ratePerSec: 2000, concurrency: 500 } },
    });
    expect(put.status).toBe(200);
    const { key } = await createFleetKey(t, [GROUP]);
    const instances = REGIONS.flatMap((region) =>
      Array.from({ length: PER_REGION }, (_, i) => {
        const recloser = createRecloser({
          url: baseUrl,
          key,
          instanceId: `${region}-${i}`,
          group: GROUP,
          region,
          heartbeatIntervalMs: INTERVAL_MS,
        });
        closers.push(() => recloser.close());
        return { region, breaker: recloser.breaker(DEPENDENCY, { local: LOCAL }) };
      }),
    );
    // every instance wants a call every 50 ms; eu-west's calls fail (network) at home, and while
    // its breaker is paused it asks route() where a call may go (a moved call succeeds there)
    let running = true;
    const moved = new Map<string, number>();
    const loops = instances.map(async ({ region, breaker }) => {
      for (let n = 0; running && n < 1600; n++) {
        if (breaker.allow())
          breaker.record(region === 'eu-west' ? 'network' : 'success', { latencyMs: 5, labels: { region } });
        else if (region === 'eu-west') {
          const to = breaker.route(REGIONS);
          if (to !== null && to !== region) moved.set(to, (moved.get(to) ?? 0) + 1);
        }
        await sleep(50);
      }
    });
    try {
      const list = async (): Promise<any[]> => {
        const res = await t.request('GET', `/v1/breakers?group=${GROUP}`, { token: key });
        expect(res.status).toBe(200);
        return res.body.breakers.filter((b: any) => b.dependency === DEPENDENCY);
      };
      const whole = (bs: any[]) => bs.find((b: any) => b.region === null);
      const regional = (bs: any[]) => bs.find((b: any) => b.region === 'eu-west');
      const receiving = (b: any) => (b?.regions ?? []).filter((r: any) => r.routedInRate > 0);

      // the region breaker opens; eu-west's instances move calls; their routed rates arrive
      const seen = await pollUntil(
        list,
        (bs) =>
          regional(bs)?.state === 'open' && receiving(whole(bs)).length > 0 && whole(bs)?.shifts?.length > 0,
        { attempts: 150, everyMs: 100 },
      );
      const g = whole(seen);
      expect(g.state).toBe('closed');
      expect([...moved.keys()].every((r) => r !== 'eu-west')).toBe(true);
      const shift = g.shifts[0];
      expect(shift).toMatchObject({
        source: 'eu-west',
        breakerId: regional(seen).breakerId,
        mode: 'shifting',
      });
      expect(shift.receivers.map((r: any) => r.region).sort()).toEqual(['ap-south', 'us-east']);
      // the dashboard's overview lists the shift under its source region's breaker
      const extras = await t.admin('GET', '/v1/admin/dashboard/extras');
      expect(extras.status).toBe(200);
      expect(extras.body.shifts[shift.breakerId]).toMatchObject({ mode: 'shifting' });
      expect(extras.body.shifts[shift.breakerId].receivers.map((r: any) => r.region)).toEqual([
        'ap-south',
        'us-east',
      ]);
      for (const r of receiving(g)) {
        expect(['us-east', 'ap-south']).toContain(r.region);
        expect(r.shiftAllowedRate).toBeGreaterThan(0);
      }
      // what the SDKs move stays within what the plan allows: no receiver is throttled
      const settled = await pollUntil(
        list,
        (bs) =>
          receiving(whole(bs)).length > 0 &&
          whole(bs).regions.every((r: any) => r.verdict !== 'shift_throttled'),
        { attempts: 40, everyMs: 100 },
      );
      for (const r of receiving(whole(settled)))
        expect(r.routedInRate, JSON.stringify(r)).toBeLessThanOrEqual(r.shiftAllowedRate * 1.1);

      // a fake router in eu-west (hand-made heartbeats, not an SDK) moves 500/s into us-east
      let rogue = true;
      const rogueLoop = (async () => {
        while (rogue) {
          await heartbeat(t, key, {
            instanceId: 'fake-router-eu-west',
            group: GROUP,
            region: 'eu-west',
            breakers: [verdict(DEPENDENCY, 'closed', { routed: { 'us-east': 500 } })],
          });
          await sleep(INTERVAL_MS);
        }
      })();
      try {
        const throttled = await pollUntil(
          list,
          (bs) =>
            whole(bs)?.regions.some((r: any) => r.region === 'us-east' && r.verdict === 'shift_throttled'),
          { attempts: 60, everyMs: 100 },
        );
        const us = whole(throttled).regions.find((r: any) => r.region === 'us-east');
        expect(us.verdict).toBe('shift_throttled');
        expect(us.routedInRate).toBeGreaterThan(us.shiftAllowedRate * 1.1);
        expect(whole(throttled).shifts[0].receivers.find((r: any) => r.region === 'us-east').throttled).toBe(
          true,
        );
        // the admin detail shows the same, and the fake router's routed rates
        const detail = await t.admin('GET', `/v1/admin/breakers/${whole(throttled).breakerId}?limit=100`);
        expect(detail.status).toBe(200);
        expect(detail.body.breaker.shifts[0].source).toBe('eu-west');
        const fake = detail.body.instances.find((i: any) => i.instanceId === 'fake-router-eu-west');
        expect(fake.routed).toEqual({ 'us-east': 500 });

        // webhooks: the shift's start and the throttling, delivered
        const alerts = await pollUntil(
          async () => ({ shift: delivered('region.shift'), throttled: delivered('region.shift_throttled') }),
          (a) => a.shift.length > 0 && a.throttled.length > 0,
          { attempts: 80, everyMs: 100 },
        );
        expect(alerts.shift[0].data).toMatchObject({ source: 'eu-west', phase: 'started', mode: 'shifting' });
        expect(
          alerts.throttled.some((a: any) => a.region === 'us-east' && a.data.receivedPerSec >= 500),
        ).toBe(true);
      } finally {
        rogue = false;
        await rogueLoop;
      }

      // the shift's start is a leaf of the region breaker's log; its bundle verifies offline
      const regionId = regional(seen).breakerId;
      const b = await t.admin('GET', `/v1/admin/breakers/${regionId}/bundle`);
      expect(b.status).toBe(200);
      const bundle = b.body as Bundle;
      const leaves = bundle.entries.filter((e) => e.entry.type === 'recloser.shift/v1').map((e) => e.entry);
      expect(leaves[0]).toMatchObject({ breakerId: regionId, source: 'eu-west', seq: 1, phase: 'started' });
      const pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
      const check = verifyBundle(bundle, nodeReceiptCrypto, { pinned });
      expect(check, JSON.stringify(check)).toMatchObject({ ok: true });
      // and through `npm run verify`'s code: exit 0
      const cli = runVerify(['bundle.json'], () => JSON.stringify(bundle));
      expect(cli.code, cli.err.join('\n')).toBe(0);
    } finally {
      running = false;
      await Promise.all(loops);
    }
  });
});
