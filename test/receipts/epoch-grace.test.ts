/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON; each test asserts the fields it needs */
// The epoch a signed verdict names (issue 15: "the controller's current epoch so replays are
// refused"), end to end on the real controller: one epoch behind the breaker (it moved while the
// heartbeat was in flight) is kept and counted in the next quorum certificate, which verifies
// offline; two behind is refused with a 409 naming the field, and nothing is kept (core signedEpoch).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, fromBase64, fromUtf8, verifyBundle } from '@recloser/core';
import { InstanceIdentity } from '../../libs/client/src/identity/InstanceIdentity.js';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, instanceIds, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const DEP = 'llm-provider';
const FOUR = instanceIds(4, 'a');

describe('signed verdicts one epoch behind are kept and counted; older ones are refused (real Postgres + Redis)', () => {
  let t: TestApp;
  let group: string;
  let key: string;
  let breakerId: string;
  const identities = new Map<string, InstanceIdentity>();

  const send = (id: string, state: string, epoch: number | null) => {
    const v: any = verdict(DEP, state);
    if (epoch !== null) v.envelope = identities.get(id)!.sign(id, group, { ...v }, epoch);
    return heartbeat(t, key, { instanceId: id, group, breakers: [v] });
  };
  const epochNow = async (): Promise<number> => {
    const [row] = await t.db.query<{ epoch: number }>(`SELECT epoch FROM breakers WHERE id = $1`, [
      breakerId,
    ]);
    return row!.epoch;
  };
  const kept = (id: string) =>
    t.db.query<{ epoch: number; seq: string }>(
      `SELECT epoch, seq FROM signed_verdicts WHERE group_name = $1 AND instance_id = $2`,
      [group, id],
    );
  const cycle = async (reason: string) => {
    for (const action of ['force_open', 'force_close'])
      expect(
        (await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, { action, reason })).status,
      ).toBeLessThan(300);
  };

  beforeAll(async () => {
    t = await bootTestApp();
    group = `g-grace-${randomSuffix()}`;
    key = (await createFleetKey(t, [group])).key;
    await t.admin('PUT', `/v1/admin/groups/${group}/identity`, { mode: 'required' });
    for (const id of FOUR) {
      const identity = new InstanceIdentity();
      const r = await t.request('POST', '/v1/instance-keys', {
        token: key,
        body: { instanceId: id, group, publicKey: identity.publicKey },
      });
      expect(r.status).toBe(201);
      identity.keyId = r.body.keyId;
      identities.set(id, identity);
    }
    const first = await send('a0', 'closed', null);
    expect(first.status).toBe(200);
    breakerId = first.body.breakers[0].breakerId;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('one epoch behind: answered and kept; two behind: 409 naming breakers.0.envelope, nothing kept', async () => {
    await cycle('grace e2e: first epoch');
    expect(await epochNow()).toBe(1);
    const grace = await send('a0', 'open', 0);
    expect(grace.status).toBe(200);
    expect(await kept('a0')).toEqual([{ epoch: 0, seq: '1' }]);

    await cycle('grace e2e: second epoch');
    expect(await epochNow()).toBe(2);
    const expired = await send('a0', 'open', 0);
    expect(expired.status).toBe(409);
    expect(expired.body.message).toMatch(
      /^breakers\.0\.envelope: signed for epoch 0 but the breaker is in epoch 2 \(more than 1 epoch behind: a stale or replayed verdict\)/,
    );
    expect(await kept('a0')).toEqual([{ epoch: 0, seq: '1' }]); // neither stored nor its seq used
    const future = await send('a0', 'open', 3);
    expect([future.status, future.body.message]).toEqual([
      409,
      expect.stringMatching(/^breakers\.0\.envelope: signed for epoch 3 but the breaker is in epoch 2/),
    ]);
  });

  it('a verdict signed one epoch before the breaker opened from is counted, signed, in its certificate; the bundle verifies', async () => {
    expect(await epochNow()).toBe(2);
    await sleep(1_100); // force_close keeps the quorum quiet for the heartbeat TTL
    // all four live first, so L is 4 whichever verdict completes the quorum
    for (const id of FOUR) expect((await send(id, 'closed', null)).status).toBe(200);
    // a0 still signs the epoch before (its plans are late); the others sign the current one. One at
    // a time, a0 first: the breaker opens (epoch 3) on the K-th, with exactly a0..a(K-1) open
    let opened: any;
    for (const id of FOUR) {
      const r = await send(id, 'open', id === 'a0' ? 1 : 2);
      expect([r.status, r.text]).toEqual([200, expect.anything()]);
      if (r.body.breakers[0].global.state === 'open') {
        opened = r.body;
        break;
      }
    }
    expect(opened?.breakers[0].global).toMatchObject({ state: 'open', epoch: 3 });
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body as Bundle;
    const pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
    expect(verifyBundle(bundle, nodeReceiptCrypto, { pinned })).toMatchObject({ ok: true, receipts: 1 });
    const cert = bundle.receipts.at(-1)!.statement;
    expect(cert).toMatchObject({ epoch: 3, identity: 'required', live: 4 });
    expect(cert.threshold).toBeGreaterThanOrEqual(2); // a0 and at least one signed in the current epoch
    const quorum = FOUR.slice(0, cert.threshold);
    expect(cert.verdicts.map((v) => [v.instanceId, v.signed])).toEqual(quorum.map((id) => [id, true]));
    const signedIn = Object.fromEntries(
      cert.verdicts.map((v) => [
        v.instanceId,
        v.signed ? JSON.parse(fromUtf8(fromBase64(v.envelope.payload))).epoch : null,
      ]),
    );
    expect(signedIn).toEqual(Object.fromEntries(quorum.map((id) => [id, id === 'a0' ? 1 : 2])));
  });
});
