/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON; each test asserts the fields it needs */
// The transparency log behind two replicas (real Postgres + Redis): operators act on many breakers
// at once through both; every transition gets exactly one leaf, the indexes are dense, each
// breaker's bundle verifies, and both replicas sign the same checkpoint for the same tree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, verifyBundle } from '@recloser/core';
import { createControllerApp } from '../../apps/controller/src/app.factory.js';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

describe('the transparency log across two replicas', () => {
  let a: TestApp;
  let b: Awaited<ReturnType<typeof createControllerApp>>;
  beforeAll(async () => {
    a = await bootTestApp();
    b = await createControllerApp(a.env); // same database, same Redis prefix
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const adminOn = async (replica: 'a' | 'b', method: 'GET' | 'POST', url: string, body?: unknown) => {
    if (replica === 'a') return a.admin(method, url, body);
    const res = await b
      .getHttpAdapter()
      .getInstance()
      .inject({
        method,
        url,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    return { status: res.statusCode, body: res.json() as any };
  };

  it('concurrent transitions through both replicas: one leaf each, dense, every bundle verifies', async () => {
    const group = `g-log-${randomSuffix()}`;
    const { key } = await createFleetKey(a, [group]);
    const deps = Array.from({ length: 8 }, (_, i) => `dep-${i}`);
    const r = await heartbeat(a, key, {
      instanceId: 'w',
      group,
      breakers: deps.map((d) => verdict(d, 'closed')),
    });
    const ids: string[] = r.body.breakers.map((p: any) => p.breakerId);
    const act = (id: string, i: number, action: string) =>
      adminOn(i % 2 === 0 ? 'a' : 'b', 'POST', `/v1/admin/breakers/${id}/actions`, {
        action,
        reason: `r${i}`,
      });
    for (const action of ['force_open', 'force_close', 'force_open']) {
      const answers = await Promise.all(ids.map((id, i) => act(id, i, action)));
      expect(answers.every((x) => x.status < 300)).toBe(true);
    }
    const [counts] = await a.db.query<{ leaves: number; top: number; transitions: number; size: number }>(
      `SELECT (SELECT count(*)::int FROM log_leaves) AS leaves, (SELECT max(idx)::int FROM log_leaves) AS top,
              (SELECT count(*)::int FROM transitions) AS transitions, (SELECT size::int FROM log_head) AS size`,
    );
    expect(counts!.transitions).toBe(24);
    expect(counts).toEqual({ leaves: 24, top: 23, transitions: 24, size: 24 });
    for (const [i, id] of ids.entries()) {
      const bundle = (await adminOn(i % 2 === 0 ? 'b' : 'a', 'GET', `/v1/admin/breakers/${id}/bundle`))
        .body as Bundle;
      expect(verifyBundle(bundle, nodeReceiptCrypto)).toMatchObject({ ok: true, entries: 3 });
    }
    const fromA = (await adminOn('a', 'GET', '/v1/admin/log/checkpoint')).body;
    const fromB = (await adminOn('b', 'GET', '/v1/admin/log/checkpoint')).body;
    expect(fromB).toEqual(fromA);
  });
});
