/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON; each test asserts the fields it needs */
// A global OPEN while a region's breaker is open, in a group that requires signed verdicts (issue
// 15), on the real controller with heartbeats over HTTP: eu-west's instances follow their region
// breaker and sign its epoch, the others sign the group breaker's. The group breaker's certificate
// carries every verdict signed — eu-west's with the region breaker they followed and its epoch — and
// its bundle verifies offline (before, eu-west's were certified unsigned and the verifier refused
// them in a group that requires signatures).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, fromBase64, fromUtf8, verifyBundle } from '@recloser/core';
import { InstanceIdentity } from '../../libs/client/src/identity/InstanceIdentity.js';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const DEP = 'llm-over-regions';
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const IDS = REGIONS.flatMap((r) => [0, 1, 2].map((i) => ({ id: `${r}-${i}`, region: r })));

describe('a global OPEN over an open region breaker certifies every verdict signed (real Postgres + Redis)', () => {
  let t: TestApp;
  let group: string;
  let key: string;
  const identities = new Map<string, InstanceIdentity>();
  /** the epoch each instance's last plan told it (what an SDK signs) */
  const heard = new Map<string, number>();

  const beat = async ({ id, region }: { id: string; region: string }, state: 'open' | 'closed') => {
    const v: any = verdict(DEP, state);
    if (state === 'open') v.envelope = identities.get(id)!.sign(id, group, { ...v }, heard.get(id) ?? 0);
    const r = await heartbeat(t, key, { instanceId: id, group, region, breakers: [v] });
    if (r.status !== 200) throw new Error(`heartbeat of ${id} ${r.status}: ${r.text}`);
    heard.set(id, r.body.breakers[0].global.epoch);
    return r.body.breakers[0];
  };
  const breakers = async (): Promise<any[]> =>
    (await t.request('GET', `/v1/breakers?group=${group}`, { token: key })).body.breakers;

  beforeAll(async () => {
    t = await bootTestApp();
    group = `g-over-${randomSuffix()}`;
    key = (await createFleetKey(t, [group])).key;
    await t.admin('PUT', `/v1/admin/groups/${group}/identity`, { mode: 'required' });
    for (const { id } of IDS) {
      const identity = new InstanceIdentity();
      const r = await t.request('POST', '/v1/instance-keys', {
        token: key,
        body: { instanceId: id, group, publicKey: identity.publicKey },
      });
      identity.keyId = r.body.keyId;
      identities.set(id, identity);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('eu-west’s verdicts are certified with their region breaker’s epoch; the bundle verifies', async () => {
    // eu-west fails alone: its region breaker opens, the group's stays closed
    const first = await pollUntil(
      async () => {
        await Promise.all(IDS.map((x) => beat(x, x.region === 'eu-west' ? 'open' : 'closed')));
        return breakers();
      },
      (bs) => bs.some((b) => b.region === 'eu-west' && b.state === 'open'),
      { attempts: 100, everyMs: 100 },
    );
    const regionId = first.find((b) => b.region === 'eu-west').breakerId;
    const groupBreaker = first.find((b) => b.region === null);
    expect(groupBreaker.state).toBe('closed');
    // one more round: eu-west's plans now carry the region breaker's epoch
    await Promise.all(IDS.map((x) => beat(x, x.region === 'eu-west' ? 'open' : 'closed')));
    expect(IDS.filter((x) => x.region === 'eu-west').map((x) => heard.get(x.id))).toEqual([1, 1, 1]);

    // then every region fails: the group's quorum opens the group breaker
    await pollUntil(
      async () => {
        await Promise.all(IDS.map((x) => beat(x, 'open')));
        return breakers();
      },
      (bs) => bs.some((b) => b.region === null && b.state === 'open'),
      { attempts: 100, everyMs: 100 },
    );
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${groupBreaker.breakerId}/bundle`))
      .body as Bundle;
    const pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
    const checked = verifyBundle(bundle, nodeReceiptCrypto, { pinned });
    expect(checked).toMatchObject({ ok: true, receipts: 1 });
    const cert = bundle.receipts[0]!.statement;
    expect(cert).toMatchObject({ identity: 'required', epoch: 1, live: 9 });
    expect(cert.region).toBeUndefined();
    expect(cert.verdicts.every((v) => v.signed)).toBe(true);
    const byId = new Map(cert.verdicts.map((v) => [v.instanceId, v]));
    for (const { id, region } of IDS) {
      const v = byId.get(id);
      if (!v?.signed) continue; // formed by K or more, not necessarily all nine
      const epoch = JSON.parse(fromUtf8(fromBase64(v.envelope.payload))).epoch;
      if (region === 'eu-west') {
        expect(v.followed).toEqual({ breakerId: regionId, epoch: 1 });
        expect(epoch).toBe(1);
      } else {
        expect(v.followed).toBeUndefined();
        expect(epoch).toBe(0);
      }
    }
    expect(cert.verdicts.some((v) => v.signed && v.followed)).toBe(true);
  });
});
