// One breaker through the whole recovery on the real app (in-process, real Postgres, Redis and
// BullMQ): quorum → OPEN → (ramp tick, cooldown) PROBING → a designated prober gets its token in the
// heartbeat plan → probes pass → RAMPING with allowances that fit the step → gates hold → CLOSED,
// every step in the transition log with the gate figures that justified it.
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '@recloser/core';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { rampPool } from './support/ramp-pool.js';

let t: TestApp;
let key: string;
const group = 'ramp-group';
const dependency = 'ramp-llm';
const instances = ['a', 'b', 'c', 'd'];
const STEP0_RATE = 0.5 * 40;
/** a breaker whose pool declares that its provider sheds cleanly (ramp.shedsCleanly) */
const SHEDDING = { group: 'shed-group', dependency: 'shed-llm' };

beforeAll(async () => {
  t = await bootTestApp();
  key = (await createFleetKey(t, [group, SHEDDING.group])).key;
  const put = await t.admin('PUT', '/v1/admin/pools/ramp-pool', rampPool(dependency));
  expect(put.status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

const beat = (
  instanceId: string,
  state: 'open' | 'closed',
  demand?: Record<string, number>,
  on: { group: string; dependency: string; evidence?: unknown } = { group, dependency },
) =>
  heartbeat(t, key, {
    instanceId,
    group: on.group,
    breakers: [
      verdict(on.dependency, state, {
        ...(demand ? { demand } : {}),
        ...(on.evidence ? { evidence: on.evidence } : {}),
      }),
    ],
  });

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const got = await fn();
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type On = { group: string; dependency: string };

/** Quorum opens the breaker (after the learning period); the ramp tick ends the cooldown. */
async function untilProbing(on: On = { group, dependency }): Promise<void> {
  await until('probing', async () => {
    const plans = await Promise.all(instances.map((id) => beat(id, 'open', { standard: 10 }, on)));
    return plans.some((p) => p.body.breakers[0].global.state === 'probing') ? true : undefined;
  });
}

/** While probing: exactly one instance (concurrency 1) is designated and gets its token in the plan. */
function designatedProbe(on: On = { group, dependency }): Promise<any> {
  return until('a designated prober', async () => {
    const plans = await Promise.all(instances.map((id) => beat(id, 'open', { standard: 10 }, on)));
    const withProbe = plans.map((p) => p.body.breakers[0]).filter((b: any) => b.probe);
    expect(withProbe.length).toBeLessThanOrEqual(1);
    expect(plans.every((p) => p.body.breakers[0].allowance === null)).toBe(true);
    return withProbe[0]?.probe;
  });
}

describe('global recovery of one breaker', () => {
  it('goes OPEN → PROBING → RAMPING → CLOSED with designated probers, fitting allowances and gate figures', async () => {
    await untilProbing();
    for (let passed = 0; passed < 2; passed++) {
      const probe = await designatedProbe();
      const result = await t.request('POST', `/v1/probes/${probe.token}/result`, {
        token: key,
        body: { outcome: 'success', latencyMs: 50 },
      });
      expect(result.status).toBe(200);
      const again = await t.request('POST', `/v1/probes/${probe.token}/result`, {
        token: key,
        body: { outcome: 'success', latencyMs: 50 },
      });
      expect(again.status).toBe(409);
    }

    // ramping: allowances by demand, never more than the step's budget in sum
    const ramping = await until('ramping allowances', async () => {
      const plans = await Promise.all(instances.map((id) => beat(id, 'closed', { standard: 10 })));
      const bs = plans.map((p) => p.body.breakers[0]);
      return bs.every((b: any) => b.global.state === 'ramping') ? bs : undefined;
    });
    const rate = ramping.reduce(
      (s: number, b: any) => s + (b.allowance.classes.standard?.ratePerSec ?? 0),
      0,
    );
    expect(rate).toBeGreaterThan(0);
    expect(rate).toBeLessThanOrEqual(STEP0_RATE + 1e-9);
    expect(ramping.every((b: any) => b.probe === null && b.allowance.validForMs > 0)).toBe(true);

    // healthy evidence on admitted traffic: the gates hold, step 1, then CLOSED
    const breakerId = ramping[0].breakerId as string;
    await until('closed', async () => {
      const plans = await Promise.all(instances.map((id) => beat(id, 'closed', { standard: 10 })));
      return plans.every((p) => p.body.breakers[0].global.state === 'closed') ? true : undefined;
    });

    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
    const path = log.body.transitions.map((x: any) => `${x.from}>${x.to}:${x.actor}`);
    expect(path).toEqual(
      expect.arrayContaining([
        'closed>open:quorum',
        'open>probing:cooldown',
        'probing>ramping:probe',
        'ramping>closed:ramp',
      ]),
    );
    const stepUp = log.body.transitions.find((x: any) => x.from === 'ramping' && x.to === 'ramping');
    expect(stepUp.figures.gates).toMatchObject({ outcome: 'pass' });
    expect(stepUp.figures.gates.attempts).toBeGreaterThanOrEqual(5);
    const closing = log.body.transitions.find((x: any) => x.to === 'closed' && x.actor === 'ramp');
    expect(closing.figures.gates).toMatchObject({ outcome: 'pass', failed: [] });

    // provable offline (issue 15): each ramp entry carries the pool's gates and is justified by them
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body;
    expect(verifyBundle(bundle, nodeReceiptCrypto)).toMatchObject({ ok: true, receipts: 1 });
    const rampEntries = bundle.entries.filter((e: any) => e.entry.actor === 'ramp');
    expect(rampEntries.length).toBeGreaterThan(0);
    for (const e of rampEntries)
      expect(e.entry.gateThresholds).toMatchObject({ minSuccessRate: expect.any(Number) });
  });
});

describe('a pool that declares its provider sheds cleanly (ramp.shedsCleanly)', () => {
  it('judges a ramp level by errors first from the first recovery, and the log verifies against the thresholds it was judged by', async () => {
    const put = await t.admin('PUT', '/v1/admin/pools/shed-pool', {
      ...rampPool(SHEDDING.dependency),
      ramp: { ...rampPool(SHEDDING.dependency).ramp, shedsCleanly: true },
    });
    expect(put.status).toBe(200);
    const on = SHEDDING;
    await untilProbing(on);
    for (let passed = 0; passed < 2; passed++) {
      const probe = await designatedProbe(on);
      await t.request('POST', `/v1/probes/${probe.token}/result`, {
        token: key,
        body: { outcome: 'success', latencyMs: 50 },
      });
    }
    // 97 of every 100 admitted calls succeed, 3 shed at once: under the pool's 95 % gate a pass,
    // judged as a clean shedder (98 %) a degrade
    const healthy = verdict(on.dependency, 'closed').evidence;
    const evidence = {
      ...healthy,
      attempts: 100,
      successes: 97,
      byClass: { ...healthy.byClass, overload: 3 },
    };
    const breakerId = await until('a degraded ramp level', async () => {
      const plans = await Promise.all(
        instances.map((id) => beat(id, 'closed', { standard: 10 }, { ...on, evidence })),
      );
      const b = plans[0]!.body.breakers[0];
      const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${b.breakerId}`);
      const degraded = log.body.transitions.some(
        (x: any) => x.actor === 'ramp' && x.figures.gates?.outcome === 'degrade',
      );
      return degraded ? (b.breakerId as string) : undefined;
    });
    const log = (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    const degrade = log.transitions.find(
      (x: any) => x.actor === 'ramp' && x.figures.gates?.outcome === 'degrade',
    );
    expect(degrade.figures).toMatchObject({ shedsCleanly: true, gates: { failed: ['successRate'] } });
    expect(degrade.figures.gates.successRate).toBeCloseTo(0.97, 5);
    // the log records the 98 % the move was judged by, and the bundle verifies against it
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body;
    expect(verifyBundle(bundle, nodeReceiptCrypto)).toMatchObject({ ok: true });
    const entry = bundle.entries.find((e: any) => e.entry.seq === degrade.seq).entry;
    expect(entry.gateThresholds.minSuccessRate).toBe(0.98);
  });
});
