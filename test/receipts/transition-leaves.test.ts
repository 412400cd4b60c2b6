/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape */
// Every kind of transition the issue names is a leaf of the transparency log with its figures (issue
// 15), on the real app: opened by quorum (its quorum figures and certificate), probing, each ramp
// step — down on degraded gates and up on passing ones — with its gate figures and the pool's gates,
// closed by the ramp, and forced by an operator with the reason. The bundle holds exactly the
// breaker's transitions, each at the leaf GET /v1/admin/transitions names, and verifies offline
// (each ramp step justified by its gates). Shift plans are another suite's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bundle,
  DEFAULT_GATES,
  judgedGateThresholds,
  isShiftLeaf,
  type LogEntryStatement,
  type LogLeafStatement,
  verifyBundle,
} from '@recloser/core';

// this breaker shifts nothing: every leaf of its bundle is a transition
const transition = (e: LogLeafStatement): LogEntryStatement => {
  if (isShiftLeaf(e)) throw new Error(`unexpected shift leaf ${e.phase}`);
  return e;
};
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { createFleetKey } from '../support/fleet-key.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { rampPool } from '../recovery/support/ramp-pool.js';

let t: TestApp;
let key: string;
const group = `leaves-${randomSuffix()}`;
const dependency = 'leaves-llm';
const instances = ['a', 'b', 'c', 'd'];

beforeAll(async () => {
  t = await bootTestApp();
  key = (await createFleetKey(t, [group])).key;
  const pool = rampPool(dependency);
  // four ramp levels: one to pass, one to degrade at and step back down from, two more to close
  pool.ramp.steps = [0.4, 0.6, 0.8, 1.0];
  expect((await t.admin('PUT', `/v1/admin/pools/leaves-pool-${randomSuffix()}`, pool)).status).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

/** healthy evidence, or 17 of 20 answered well: under the 95 % gate, above half of it (a degrade) */
const beat = (instanceId: string, state: 'open' | 'closed', degraded = false) => {
  const v: any = verdict(dependency, state, { demand: { standard: 10 } });
  if (degraded)
    v.evidence = { ...v.evidence, successes: 17, byClass: { ...v.evidence.byClass, overload: 3 } };
  return heartbeat(t, key, { instanceId, group, breakers: [v] });
};
const round = (state: 'open' | 'closed', degraded = false) =>
  Promise.all(instances.map((id) => beat(id, state, degraded)));

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const got = await fn();
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('every transition kind is a leaf with its figures', () => {
  it('opened, probing, ramp steps down and up with gate figures, closed, forced with the reason', async () => {
    const breakerId = await until('probing', async () => {
      const plans = await round('open');
      const b = plans[0]!.body.breakers[0];
      return b.global.state === 'probing' ? (b.breakerId as string) : undefined;
    });
    for (let passed = 0; passed < 2; passed++) {
      const probe = await until('a designated prober', async () => {
        const plans = await round('open');
        return plans.map((p) => p.body.breakers[0].probe).find((p: any) => p);
      });
      const result = await t.request('POST', `/v1/probes/${probe.token}/result`, {
        token: key,
        body: { outcome: 'success', latencyMs: 50 },
      });
      expect(result.status).toBe(200);
    }
    await until('ramping', async () => {
      const plans = await round('closed');
      return plans.every((p) => p.body.breakers[0].global.state === 'ramping') ? true : undefined;
    });
    const transitions = async (): Promise<any[]> =>
      (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body.transitions;
    // healthy evidence on admitted traffic until the ramp steps up; then degraded until it steps down
    await until('a ramp step up', async () => {
      await round('closed');
      return (await transitions()).some((x) => x.actor === 'ramp' && x.to === 'ramping') ? true : undefined;
    });
    await until('a ramp step on degraded gates', async () => {
      await round('closed', true);
      return (await transitions()).some((x) => x.actor === 'ramp' && x.figures.gates?.outcome !== 'pass')
        ? true
        : undefined;
    });
    // healthy again until CLOSED (by the ramp, or a reopen after the degrade: then probe again)
    await until('closed', async () => {
      const plans = await round('closed');
      const b = plans[0]!.body.breakers[0];
      if (b.probe)
        await t.request('POST', `/v1/probes/${b.probe.token}/result`, {
          token: key,
          body: { outcome: 'success', latencyMs: 50 },
        });
      return b.global.state === 'closed' ? true : undefined;
    });
    for (const [action, reason] of [
      ['force_open', 'leaves e2e: provider maintenance window — ticket 42'],
      ['force_close', 'leaves e2e: maintenance over'],
    ]) {
      const r = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action, reason });
      expect(r.status).toBeLessThan(300);
    }

    const log = (await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`)).body;
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body as Bundle;
    const pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
    expect(verifyBundle(bundle, nodeReceiptCrypto, { pinned })).toMatchObject({ ok: true });

    // one leaf per transition, each where GET /v1/admin/transitions says, with the same figures
    expect(bundle.entries.map((e) => e.leafIndex).sort((a, b) => a - b)).toEqual(
      log.transitions.map((x: any) => x.leafIndex).sort((a: number, b: number) => a - b),
    );
    for (const x of log.transitions) {
      const e = transition(bundle.entries.find((b) => b.leafIndex === x.leafIndex)!.entry);
      expect([e.seq, e.from, e.to, e.actor, e.reason]).toEqual([x.seq, x.from, x.to, x.actor, x.reason]);
      expect(e.figures).toEqual(JSON.parse(JSON.stringify(x.figures ?? {})));
    }
    const entries = bundle.entries.map((b) => transition(b.entry));
    const kinds = entries.map((e) => `${e.actor}:${e.from}>${e.to}`);

    // opened: the quorum figures, and the certificate the leaf commits to
    const opened = entries.find((e) => e.actor === 'quorum' && e.to === 'open')!;
    expect(opened.figures.quorum).toMatchObject({ open: 4, live: 4, threshold: 2 });
    expect(opened.certificate).toMatch(/^[0-9a-f]{64}$/);
    expect(bundle.receipts).toHaveLength(1);
    // probing
    expect(kinds).toContain('cooldown:open>probing');
    expect(kinds).toContain('probe:probing>ramping');
    // each ramp step: its gate figures and the gates it was judged by (the pool's, tightened once the
    // ramp learned that this fleet's provider sheds cleanly); a step on degraded gates among them
    const steps = entries.filter((e) => e.actor === 'ramp');
    for (const e of steps) {
      expect(e.figures.gates).toMatchObject({
        outcome: expect.any(String),
        attempts: expect.any(Number),
        successRate: expect.any(Number),
        failed: expect.any(Array),
      });
      expect(e.gateThresholds).toEqual(judgedGateThresholds(DEFAULT_GATES, e.figures));
    }
    const up = steps.findIndex((e) => e.to === 'ramping' && (e.figures.gates as any).outcome === 'pass');
    const down = steps.findIndex((e) => (e.figures.gates as any).outcome === 'degrade');
    expect(up).toBeGreaterThanOrEqual(0);
    expect(down).toBeGreaterThan(up);
    expect((steps[down]!.figures.gates as any).failed).toContain('successRate');
    // back to the level that held (or a reopen, should nothing lower have held)
    expect(
      steps[down]!.to === 'open' ||
        (steps[down]!.figures.level as number) <= (steps[up]!.figures.level as number),
    ).toBe(true);
    if (steps[down]!.to === 'ramping')
      expect(steps[down]!.figures.level as number).toBeLessThan(steps[down - 1]!.figures.level as number);
    // closed by the ramp, on passing gates
    const closedByRamp = steps.find((e) => e.to === 'closed')!;
    expect(closedByRamp.figures.gates).toMatchObject({ outcome: 'pass', failed: [] });
    // forced by an operator, with the reason
    const forced = entries.filter((e) => e.actor === 'operator');
    expect(forced.map((e) => [e.to, e.figures.action, e.reason])).toEqual([
      ['open', 'force_open', 'force_open: leaves e2e: provider maintenance window — ticket 42'],
      ['closed', 'force_close', 'force_close: leaves e2e: maintenance over'],
    ]);
  });
});
