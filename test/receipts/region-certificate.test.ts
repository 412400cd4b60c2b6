/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON; each test asserts the fields it needs */
// A region_open carries a controller-signed quorum certificate like a global OPEN (issue 15), end
// to end: nine SDK instances with signVerdicts (createRecloser over real HTTP) in three regions of a
// group that requires identity; eu-west's calls fail, so its region breaker opens by eu-west's
// quorum while the group's stays closed. The region breaker's bundle holds the certificate (the
// region, its group breaker and that breaker's epoch, L of the region and its digest, K, the signed
// verdicts) and `npm run verify` accepts it; a tampered one is refused naming what failed. After the
// open, eu-west's instances sign their region breaker's epoch and their heartbeats are still taken.
import { createRecloser, type Recloser } from '@recloser/client';
import { type Bundle, fromBase64, liveDigest, toBase64, utf8, verifyBundle } from '@recloser/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeReceiptCrypto } from '../../apps/controller/src/receipts/node-crypto.js';
import { runVerify } from '../../apps/controller/src/receipts/verify-cli.js';
import { InstanceIdentity } from '../../libs/client/src/identity/InstanceIdentity.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, pollUntil, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const INTERVAL_MS = 250;
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const PER_REGION = 3;
const DEP = 'regional-llm';
const LOCAL = { mode: 'window', windowTicks: 4, minWindowAttempts: 3, failureRateThreshold: 0.8 } as const;

describe('a region_open’s quorum certificate (real Postgres + Redis, signing SDK instances in regions)', () => {
  let t: TestApp;
  let group: string;
  let key: string;
  const fleets: Recloser[] = [];
  const refusals: string[] = [];
  let running = true;
  let loops: Promise<void>[] = [];
  let bundle: Bundle;
  let regionId: string;
  let groupId: string;
  let pinned: string[];

  beforeAll(async () => {
    t = await bootTestApp({
      RECLOSER_HEARTBEAT_INTERVAL_MS: String(INTERVAL_MS),
      RECLOSER_HEARTBEAT_TTL_MS: '1500',
    });
    const url = await t.listen();
    group = `g-region-cert-${randomSuffix()}`;
    key = (await createFleetKey(t, [group])).key;
    expect((await t.admin('PUT', `/v1/admin/groups/${group}/identity`, { mode: 'required' })).status).toBe(
      200,
    );
    const instances = REGIONS.flatMap((region) =>
      Array.from({ length: PER_REGION }, (_, i) => {
        const recloser = createRecloser({
          url,
          key,
          instanceId: `${region}-${i}`,
          group,
          region,
          heartbeatIntervalMs: INTERVAL_MS,
          signVerdicts: true,
        });
        recloser.onFallback((e) => {
          if (!e.reachable) refusals.push(`${region}-${i}: ${String((e.error as Error)?.message)}`);
        });
        fleets.push(recloser);
        return { region, breaker: recloser.breaker(DEP, { local: LOCAL }) };
      }),
    );
    // every instance calls every 50 ms; eu-west's calls fail with network errors
    loops = instances.map(async ({ region, breaker }) => {
      for (let n = 0; running && n < 1200; n++) {
        if (breaker.allow())
          breaker.record(region === 'eu-west' ? 'network' : 'success', { latencyMs: 5, labels: { region } });
        await sleep(50);
      }
    });
    const list = async (): Promise<any[]> => {
      const res = await t.request('GET', `/v1/breakers?group=${group}`, { token: key });
      return (res.body.breakers ?? []).filter((b: any) => b.dependency === DEP);
    };
    const opened = await pollUntil(
      list,
      (bs) => bs.some((b) => b.region === 'eu-west' && b.state === 'open'),
      {
        attempts: 120,
        everyMs: 100,
      },
    );
    const regional = opened.find((b) => b.region === 'eu-west');
    if (!regional)
      throw new Error(`no region opened: ${JSON.stringify(opened)}; refused: ${refusals.join('; ')}`);
    regionId = regional.breakerId;
    groupId = opened.find((b) => b.region === null).breakerId;
    expect(opened.find((b) => b.region === null).state).toBe('closed');
    // a few heartbeats after the open: eu-west's instances sign their region breaker's epoch now
    await sleep(6 * INTERVAL_MS);
    bundle = (await t.admin('GET', `/v1/admin/breakers/${regionId}/bundle`)).body as Bundle;
    pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
  });
  afterAll(async () => {
    running = false;
    await Promise.all(loops);
    await Promise.all(fleets.map((f) => f.close()));
    await t?.close();
  });

  it('the region breaker’s bundle holds its certificate: the region, L of the region and its digest, K, signed verdicts; it verifies', async () => {
    expect(verifyBundle(bundle, nodeReceiptCrypto, { pinned })).toMatchObject({ ok: true, receipts: 1 });
    const cert = bundle.receipts[0]!.statement;
    const euWest = Array.from({ length: PER_REGION }, (_, i) => `eu-west-${i}`);
    expect(cert).toMatchObject({
      breakerId: regionId,
      group,
      dependency: DEP,
      epoch: 1,
      live: PER_REGION,
      liveDigest: liveDigest(nodeReceiptCrypto.sha256, euWest),
      threshold: 2,
      identity: 'required',
      policy: { fractionBps: 5000, minOpen: 2 },
      region: { region: 'eu-west', groupBreakerId: groupId, signedIn: 0 },
    });
    expect(cert.verdicts.length).toBeGreaterThanOrEqual(cert.threshold);
    expect(cert.verdicts.every((v) => v.signed && euWest.includes(v.instanceId))).toBe(true);
    const opening = bundle.entries.find((e) => e.leafIndex === bundle.receipts[0]!.leafIndex)!.entry;
    expect(opening).toMatchObject({ actor: 'quorum', to: 'open', figures: { scope: 'region:eu-west' } });
    const files = new Map([['b', JSON.stringify(bundle)]]);
    files.set('keys', JSON.stringify((await t.admin('GET', '/v1/admin/log/keys')).body));
    const cli = runVerify(['b', '--keys', 'keys'], (f) => files.get(f)!);
    expect(cli.code).toBe(0);
    expect(cli.out.join('\n')).toMatch(/verified: .*1 quorum certificate\(s\)/);
  });

  it('after the open, a verdict of eu-west signed in its region breaker’s epoch (what its plans carry) is taken and kept on that breaker', async () => {
    expect(refusals).toEqual([]); // no SDK heartbeat was refused, before or after the open
    const paused = fleets.slice(0, PER_REGION).map((f) => [f.breaker(DEP).state, f.breaker(DEP).planEpoch]);
    expect(paused).toEqual(fleets.slice(0, PER_REGION).map(() => ['paused', 1])); // the region breaker's epoch
    // a paused instance reports nothing locally open; one more eu-west instance does, signing as its plan says
    const identity = new InstanceIdentity();
    const reg = await t.request('POST', '/v1/instance-keys', {
      token: key,
      body: { instanceId: 'eu-west-9', group, publicKey: identity.publicKey },
    });
    identity.keyId = reg.body.keyId;
    const send = (epoch: number) => {
      const v: any = verdict(DEP, 'open');
      v.envelope = identity.sign('eu-west-9', group, { ...v }, epoch);
      return heartbeat(t, key, { instanceId: 'eu-west-9', group, region: 'eu-west', breakers: [v] });
    };
    const first = await send(1);
    expect(first.status).toBe(200);
    expect(first.body.breakers[0].global).toMatchObject({ state: 'open', epoch: 1 });
    const [row] = await t.db.query<{ breaker_id: string; epoch: number }>(
      `SELECT breaker_id, epoch FROM signed_verdicts WHERE group_name = $1 AND instance_id = 'eu-west-9'`,
      [group],
    );
    expect(row).toEqual({ breaker_id: regionId, epoch: 1 });
    const future = await send(2);
    expect([future.status, future.body.message]).toEqual([
      409,
      expect.stringMatching(/^breakers\.0\.envelope: signed for epoch 2 but the breaker is in epoch 1/),
    ]);
  });

  it('npm run verify refuses a tampered region certificate, naming what failed', () => {
    const files = new Map<string, string>();
    files.set('keys', pinned.join('\n'));
    const verify = (b: Bundle) => {
      files.set('t', JSON.stringify(b));
      const r = runVerify(['t', '--keys', 'keys'], (f) => files.get(f)!);
      return { code: r.code, last: r.err.at(-1) ?? '' };
    };
    // the region shown changed
    const shown = structuredClone(bundle);
    shown.receipts[0]!.statement.region!.region = 'us-east';
    expect(verify(shown)).toEqual({
      code: 1,
      last: expect.stringMatching(/receipt 1 .*statement shown differs from the signed payload/),
    });
    // a verdict dropped from the signed payload (re-encoded, not re-signed): the signature breaks
    const dropped = structuredClone(bundle);
    const payload = JSON.parse(Buffer.from(fromBase64(dropped.receipts[0]!.envelope.payload)).toString());
    payload.verdicts.pop();
    payload.threshold = 1;
    dropped.receipts[0]!.envelope.payload = toBase64(utf8(JSON.stringify(payload)));
    dropped.receipts[0]!.statement = payload;
    expect(verify(dropped)).toEqual({
      code: 1,
      last: expect.stringMatching(/receipt 1 .*quorum certificate: .*signature/),
    });
    // a signed verdict changed inside the certificate: its instance's signature breaks
    const changed = structuredClone(bundle);
    const v = changed.receipts[0]!.statement.verdicts[0]!;
    if (v.signed) v.envelope.payload = toBase64(utf8('{"state":"closed"}'));
    expect(verify(changed).code).toBe(1);
  });
});
