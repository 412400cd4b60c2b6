/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON; each test asserts the fields it needs */
// Provable decisions end to end (real Postgres + Redis): a breaker opened by a quorum of signed and
// unsigned verdicts, ramped by nobody, forced closed; its bundle verifies offline, its transitions
// carry inclusion proofs, tampering is refused by the API or by the verifier, key rotation keeps old
// receipts verifiable.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bundle,
  fromBase64,
  leafHash,
  openCheckpoint,
  parseVerifierKey,
  utf8,
  canonicalize,
  signCheckpoint,
  toBase64,
  verifyBundle,
  verifyInclusion,
} from '@recloser/core';
import { createRecloser } from '@recloser/client';
import { InstanceIdentity } from '../../libs/client/src/identity/InstanceIdentity.js';
import { nodeReceiptCrypto, signerFor } from '../../apps/controller/src/receipts/node-crypto.js';
import { runVerify } from '../../apps/controller/src/receipts/verify-cli.js';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, instanceIds, pollUntil, sleep, verdict } from '../support/fleet.js';
import { bootTestApp, randomSuffix, type TestApp } from '../support/test-app.js';

const DEP = 'llm-provider';
const TEN = instanceIds(10);
const SIGNERS = 3; // i0..i2 sign; i3..i6 open unsigned; i7..i9 closed

describe('receipts: signed verdicts, quorum certificates, the transparency log (real Postgres + Redis)', () => {
  let t: TestApp;
  let group: string;
  let key: string;
  let breakerId: string;
  const identities = new Map<string, InstanceIdentity>();

  const round = async (epoch: number) =>
    Promise.all(
      TEN.map(async (id, i) => {
        const v: any = verdict(DEP, i < 7 ? 'open' : 'closed');
        const identity = identities.get(id);
        if (identity) v.envelope = identity.sign(id, group, { ...v }, epoch);
        const r = await heartbeat(t, key, { instanceId: id, group, breakers: [v] });
        if (r.status !== 200) throw new Error(`heartbeat ${r.status}: ${r.text}`);
        return r.body;
      }),
    );

  beforeAll(async () => {
    t = await bootTestApp();
    group = `g-receipts-${randomSuffix()}`;
    key = (await createFleetKey(t, [group])).key;
    expect((await t.admin('PUT', `/v1/admin/groups/${group}/identity`, { mode: 'optional' })).body).toEqual({
      group,
      identity: 'optional',
    });
    for (const id of TEN.slice(0, SIGNERS)) {
      const identity = new InstanceIdentity();
      const r = await t.request('POST', '/v1/instance-keys', {
        token: key,
        body: { instanceId: id, group, publicKey: identity.publicKey },
      });
      expect(r.status).toBe(201);
      identity.keyId = r.body.keyId;
      identities.set(id, identity);
    }
    const opened = await pollUntil(
      () => round(0),
      (bodies) => bodies[0]!.breakers[0].global.state === 'open',
      {
        attempts: 60,
        everyMs: 100,
      },
    );
    expect(opened[0]!.breakers[0].global.state).toBe('open');
    breakerId = opened[0]!.breakers[0].breakerId;
    const forced = await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_close',
      reason: 'receipts e2e: provider confirmed healthy — ok',
    });
    expect(forced.status).toBeLessThan(300);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('exports a bundle that verifies offline: signed and unsigned verdicts marked, K from L', async () => {
    const b = await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`);
    expect(b.status).toBe(200);
    const bundle = b.body as Bundle;
    const pinned = (await t.admin('GET', '/v1/admin/log/keys')).body.keys.map((k: any) => k.vkey);
    const r = verifyBundle(bundle, nodeReceiptCrypto, { pinned });
    expect(r).toMatchObject({ ok: true, entries: 2, receipts: 1 });
    const cert = bundle.receipts[0]!.statement;
    expect(cert).toMatchObject({
      live: 10,
      threshold: 5,
      identity: 'optional',
      policy: { fractionBps: 5000, minOpen: 2 },
    });
    expect(cert.verdicts.filter((v) => v.signed).map((v) => v.instanceId)).toEqual(['i0', 'i1', 'i2']);
    expect(cert.verdicts.filter((v) => !v.signed).map((v) => v.instanceId)).toEqual(['i3', 'i4', 'i5', 'i6']);
    expect(bundle.instanceKeys.map((k) => k.instanceId).sort()).toEqual(['i0', 'i1', 'i2']);
    expect(bundle.entries[1]!.entry).toMatchObject({
      actor: 'operator',
      to: 'closed',
      reason: 'force_close: receipts e2e: provider confirmed healthy — ok',
    });
  });

  it('GET /v1/admin/transitions carries each entry’s leaf and audit path to the signed checkpoint', async () => {
    const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${breakerId}`);
    expect(log.status).toBe(200);
    const { checkpoint, transitions } = log.body;
    const keys = new Map<string, Uint8Array>();
    for (const k of (await t.admin('GET', '/v1/admin/log/keys')).body.keys) {
      const parsed = parseVerifierKey(nodeReceiptCrypto.sha256, k.vkey)!;
      keys.set(parsed.keyId, parsed.publicKey);
    }
    expect(openCheckpoint(checkpoint.note, keys, nodeReceiptCrypto).ok).toBe(true);
    const bundle = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body as Bundle;
    for (const tr of transitions) {
      const entry = bundle.entries.find((e) => e.leafIndex === tr.leafIndex)!;
      const leaf = leafHash(nodeReceiptCrypto.sha256, utf8(canonicalize(entry.entry)));
      const proof = tr.inclusionProof.map(fromBase64);
      expect(
        verifyInclusion(
          nodeReceiptCrypto.sha256,
          tr.leafIndex,
          checkpoint.size,
          leaf,
          proof,
          fromBase64(checkpoint.root),
        ),
      ).toBe(true);
    }
    // leaves are dense and one per transition
    const [counts] = await t.db.query<{ leaves: number; top: number; transitions: number }>(
      `SELECT (SELECT count(*)::int FROM log_leaves) AS leaves, (SELECT max(idx)::int FROM log_leaves) AS top,
              (SELECT count(*)::int FROM transitions) AS transitions`,
    );
    expect(counts).toEqual({
      leaves: counts!.transitions,
      top: counts!.transitions - 1,
      transitions: counts!.transitions,
    });
  });

  it('refuses at the API: a replayed verdict, a forged instance key, a changed verdict, a future epoch (one epoch behind is kept)', async () => {
    const i0 = identities.get('i0')!;
    const v: any = verdict(DEP, 'open');
    const env = i0.sign('i0', group, { ...v }, 1); // the breaker is in epoch 1 now
    const first = await heartbeat(t, key, { instanceId: 'i0', group, breakers: [{ ...v, envelope: env }] });
    expect(first.status).toBe(200);
    const replay = await heartbeat(t, key, { instanceId: 'i0', group, breakers: [{ ...v, envelope: env }] });
    expect(replay.status).toBe(409);
    expect(replay.body.message).toMatch(
      /breakers\.0\.envelope: sequence number \d+ was already used .*replayed verdict/,
    );
    const i1env = identities.get('i1')!.sign('i0', group, { ...v }, 1); // i1's key speaking for i0
    const forged = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...v, envelope: i1env }],
    });
    expect(forged.status).toBe(403);
    expect(forged.body.message).toMatch(/registered for another instance \(a forged identity\)/);
    const signedOpen = i0.sign('i0', group, { ...v }, 1);
    const changed = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...verdict(DEP, 'closed'), envelope: signedOpen }],
    });
    expect(changed.status).toBe(400);
    expect(changed.body.message).toMatch(/not the verdict sent beside it \(a changed verdict\)/);
    // signed for the epoch before (the breaker moved while it was in flight): within the grace of
    // one epoch (core signedEpoch), answered; it does not replace i0's verdict signed in epoch 1
    // (test/receipts/epoch-grace.test.ts shows one kept and counted)
    const grace = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...v, envelope: i0.sign('i0', group, { ...v }, 0) }],
    });
    expect(grace.status).toBe(200);
    const kept = await t.db.query<{ epoch: number; breaker_id: string; envelope: any }>(
      `SELECT epoch, breaker_id, envelope FROM signed_verdicts WHERE instance_id = 'i0' AND group_name = $1`,
      [group],
    );
    expect(kept).toEqual([{ epoch: 1, breaker_id: breakerId, envelope: env }]);
    const future = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...v, envelope: i0.sign('i0', group, { ...v }, 9) }],
    });
    expect(future.status).toBe(409);
    expect(future.body.message).toMatch(/signed for epoch 9 but the breaker is in epoch 1/);
    const unknown = new InstanceIdentity();
    unknown.keyId = 'ik-0000000000000000';
    const unregistered = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...v, envelope: unknown.sign('i0', group, { ...v }, 1) }],
    });
    expect(unregistered.status).toBe(403);
  });

  it('a group with identity required refuses an unsigned locally open verdict, naming the field', async () => {
    const strict = `g-strict-${randomSuffix()}`;
    const k = (await createFleetKey(t, [strict])).key;
    await t.admin('PUT', `/v1/admin/groups/${strict}/identity`, { mode: 'required' });
    const r = await heartbeat(t, k, { instanceId: 'x', group: strict, breakers: [verdict(DEP, 'open')] });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/breakers\.0\.envelope: group ".*" requires signed verdicts/);
    const closed = await heartbeat(t, k, {
      instanceId: 'x',
      group: strict,
      breakers: [verdict(DEP, 'closed')],
    });
    expect(closed.status).toBe(200);
    const bad = await t.admin('PUT', `/v1/admin/groups/${strict}/identity`, { mode: 'sometimes' });
    expect(bad.status).toBe(400);
  });

  it('SDK instances with signVerdicts open a group that requires identity; every verdict in the certificate is signed', async () => {
    const strict = `g-sdk-${randomSuffix()}`;
    const k = (await createFleetKey(t, [strict])).key;
    await t.admin('PUT', `/v1/admin/groups/${strict}/identity`, { mode: 'required' });
    const url = await t.listen();
    const fleet = instanceIds(6, 'w').map((instanceId) =>
      createRecloser({
        url,
        key: k,
        instanceId,
        group: strict,
        region: 'eu-west',
        autoStart: false,
        signVerdicts: true,
      }),
    );
    try {
      for (const r of fleet) r.breaker(DEP);
      await Promise.all(fleet.map((r) => r.tick())); // closed: learns the breaker and its epoch
      let state = 'closed';
      for (let i = 0; i < 40 && state === 'closed'; i++) {
        // five of six fail every tick: their local breakers open after three bad ticks
        for (const r of fleet.slice(0, 5)) for (let n = 0; n < 10; n++) r.breaker(DEP).record('overload');
        const results = await Promise.all(fleet.map((r) => r.tick()));
        for (const res of results)
          if (!res.reachable) throw new Error(`heartbeat refused: ${String(res.error)}`);
        state = results[0]!.response!.breakers[0]!.global.state;
        if (state === 'closed') await sleep(100);
      }
      expect(state).toBe('open');
      const id = (await Promise.all(fleet.map((r) => r.tick())))[0]!.response!.breakers[0]!.breakerId;
      const bundle = (await t.admin('GET', `/v1/admin/breakers/${id}/bundle`)).body as Bundle;
      expect(verifyBundle(bundle, nodeReceiptCrypto)).toMatchObject({ ok: true, receipts: 1 });
      const cert = bundle.receipts[0]!.statement;
      expect(cert.identity).toBe('required');
      expect(cert.verdicts.length).toBeGreaterThanOrEqual(cert.threshold);
      expect(cert.verdicts.every((v) => v.signed)).toBe(true);
    } finally {
      await Promise.all(fleet.map((r) => r.close()));
    }
  });

  it('bad input on the new endpoints: 4xx naming the field, 401/403 on credentials', async () => {
    expect((await t.admin('GET', '/v1/admin/breakers/not-a-uuid/bundle')).status).toBe(404);
    expect(
      (await t.admin('GET', `/v1/admin/breakers/00000000-0000-4000-8000-000000000000/bundle`)).status,
    ).toBe(404);
    const since = await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle?since=-1`);
    expect([since.status, since.body.message]).toEqual([
      400,
      expect.stringMatching(/since must be a tree size/),
    ]);
    const far = await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle?since=999999`);
    expect([far.status, far.body.message]).toEqual([
      400,
      expect.stringMatching(/since: the log has \d+ leaves/),
    ]);
    const from = await t.admin('GET', '/v1/admin/log/consistency?from=abc');
    expect([from.status, from.body.message]).toEqual([
      400,
      expect.stringMatching(/from must be a tree size/),
    ]);
    expect((await t.request('GET', '/v1/admin/log/checkpoint')).status).toBe(401);
    const badKey = await t.request('POST', '/v1/instance-keys', {
      token: key,
      body: { instanceId: 'x', group, publicKey: 'AAAA' },
    });
    expect([badKey.status, badKey.body.message]).toEqual([
      400,
      expect.stringMatching(/publicKey must be base64 of a raw 32-byte/),
    ]);
    const other = await t.request('POST', '/v1/instance-keys', {
      token: key,
      body: { instanceId: 'x', group: 'someone-else', publicKey: new InstanceIdentity().publicKey },
    });
    expect(other.status).toBe(403);
    const taken = await t.request('POST', '/v1/instance-keys', {
      token: key,
      body: { instanceId: 'i9', group, publicKey: identities.get('i0')!.publicKey },
    });
    expect([taken.status, taken.body.message]).toEqual([
      409,
      expect.stringMatching(/registered for another instance/),
    ]);
    const badEnvelope = await heartbeat(t, key, {
      instanceId: 'i0',
      group,
      breakers: [{ ...verdict(DEP, 'open'), envelope: { payloadType: 'x', payload: '!!', signatures: [] } }],
    });
    expect(badEnvelope.status).toBe(400);
    expect(badEnvelope.body.message).toMatch(/breakers\.0\.envelope\./);
  });

  it('npm run verify: a later bundle is consistent with the last checkpoint seen; keys rotate and old receipts still verify', async () => {
    const files = new Map<string, string>();
    const read = (f: string) => files.get(f)!;
    const first = (await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle`)).body;
    files.set('b1', JSON.stringify(first));
    expect(runVerify(['b1'], read).code).toBe(0);
    files.set('cp1', first.checkpoint.note);
    // more transitions elsewhere grow the log; a restart with a configured key rotates the signer
    const oldKeys = (await t.admin('GET', '/v1/admin/log/keys')).body;
    await t.stop();
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    t = await bootTestApp({ RECLOSER_SIGNING_KEY: pem }, t.db);
    await t.admin('POST', `/v1/admin/breakers/${breakerId}/actions`, {
      action: 'force_open',
      reason: 'after rotation',
    });
    const later = (
      await t.admin('GET', `/v1/admin/breakers/${breakerId}/bundle?since=${first.checkpoint.size}`)
    ).body;
    files.set('b2', JSON.stringify(later));
    const keys = (await t.admin('GET', '/v1/admin/log/keys')).body;
    expect(keys.keys.map((k: any) => k.status)).toEqual(['active', 'retired']);
    files.set('keys', JSON.stringify(keys));
    files.set('oldkeys', JSON.stringify(oldKeys));
    const ok = runVerify(['b2', '--keys', 'keys', '--last-checkpoint', 'cp1'], read);
    expect(ok.out.join('\n')).toMatch(
      /verified: .* 3 log entries, 1 quorum certificate\(s\).*consistent with the last checkpoint/,
    );
    expect(ok.code).toBe(0);
    // pinned to the old key only: the new checkpoint's signature is refused
    const old = runVerify(['b2', '--keys', 'oldkeys'], read);
    expect(old.code).toBe(1);
    expect(old.err.at(-1)).toMatch(/checkpoint: checkpoint signature does not verify against any known key/);
    // a fork: the controller once showed another history at the first size (signed with its old key)
    const [{ private_pem }] = await t.db.query<{ private_pem: string }>(
      `SELECT private_pem FROM signing_keys WHERE source = 'generated'`,
    );
    const oldSigner = signerFor('recloser.controller/transitions', createPrivateKey(private_pem));
    const otherRoot = toBase64(nodeReceiptCrypto.sha256(utf8('another history')));
    files.set(
      'forked',
      signCheckpoint(
        { origin: 'recloser.controller/transitions', size: first.checkpoint.size, root: otherRoot },
        oldSigner,
      ),
    );
    const fork = runVerify(['b2', '--keys', 'keys', '--last-checkpoint', 'forked'], read);
    expect(fork.code).toBe(1);
    expect(fork.err.at(-1)).toMatch(/consistency: FORK/);
  });
});
