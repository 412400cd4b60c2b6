import { createHash, createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type BreakerPlan,
  type BreakerVerdict,
  epochRefusal,
  openEnvelope,
  PAYLOAD_TYPES,
  type ReceiptCrypto,
} from '@recloser/core';
import type { Transport } from '../transport/Transport.js';
import { VerdictSigner } from './VerdictSigner.js';

const crypto: ReceiptCrypto = {
  sha256: (d) => new Uint8Array(createHash('sha256').update(d).digest()),
  verify: (k, m, s) =>
    verify(
      null,
      m,
      createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(k).toString('base64url') },
        format: 'jwk',
      }),
      s,
    ),
};
const evidence = {
  attempts: 5,
  successes: 0,
  byClass: { overload: 5, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
  latencyP95Ms: null,
  ttftP95Ms: null,
  queueAgeMs: null,
};
const v = (dependency: string, state: BreakerVerdict['state']): BreakerVerdict => ({
  dependency,
  state,
  evidence,
});

function fakeTransport(fail = 0) {
  const registered: { publicKey: string }[] = [];
  let failures = fail;
  const t = {
    heartbeat: async () => {
      throw new Error('unused');
    },
    probeResult: async () => undefined,
    lease: async () => {
      throw new Error('unused');
    },
    registerKey: async (req: { publicKey: string }) => {
      if (failures-- > 0) throw new Error('controller unreachable');
      registered.push(req);
      return { keyId: 'ik-test' };
    },
  } as unknown as Transport;
  return { t, registered };
}

const keyOf = (registered: { publicKey: string }[]) =>
  new Map([['ik-test', new Uint8Array(Buffer.from(registered[0]!.publicKey, 'base64'))]]);

describe('VerdictSigner (fake transport)', () => {
  it('signs only locally open verdicts, in the epoch a plan told (0 before one did), with growing sequence numbers', async () => {
    const { t, registered } = fakeTransport();
    const signer = new VerdictSigner('w1', 'g', t);
    const closedOnly = [v('a', 'closed')];
    await signer.signOpen(closedOnly);
    expect(registered).toHaveLength(0); // nothing open: no key made, nothing sent
    signer.learnEpochs([{ dependency: 'a', global: { epoch: 3 } } as unknown as BreakerPlan]);
    const round = [v('a', 'open'), v('b', 'open'), v('c', 'closed')];
    await signer.signOpen(round);
    expect(registered).toHaveLength(1);
    // no plan told b's epoch yet: signed in epoch 0 (the statement's rule before it heard)
    expect(openEnvelope(round[1]!.envelope!, PAYLOAD_TYPES.verdict, keyOf(registered), crypto)).toMatchObject(
      {
        ok: true,
        statement: { dependency: 'b', epoch: 0, seq: 2 },
      },
    );
    expect(round[2]!.envelope).toBeUndefined();
    const key = keyOf(registered);
    const opened = openEnvelope(round[0]!.envelope!, PAYLOAD_TYPES.verdict, key, crypto);
    expect(opened).toMatchObject({
      ok: true,
      statement: { instanceId: 'w1', group: 'g', dependency: 'a', state: 'open', epoch: 3, seq: 1 },
    });
    const next = [v('a', 'half_open')];
    await signer.signOpen(next);
    expect(openEnvelope(next[0]!.envelope!, PAYLOAD_TYPES.verdict, key, crypto)).toMatchObject({
      ok: true,
      statement: { seq: 3 },
    });
  });

  it('goes unsigned while the key cannot be registered, and registers on a later tick', async () => {
    const { t, registered } = fakeTransport(1);
    const signer = new VerdictSigner('w1', 'g', t);
    signer.learnEpochs([{ dependency: 'a', global: { epoch: 0 } } as unknown as BreakerPlan]);
    const first = [v('a', 'open')];
    await signer.signOpen(first);
    expect(first[0]!.envelope).toBeUndefined();
    const second = [v('a', 'open')];
    await signer.signOpen(second);
    expect(registered).toHaveLength(1);
    expect(second[0]!.envelope?.signatures[0]?.keyid).toBe('ik-test');
  });

  it('takes the breaker’s epoch from a refusal for a signed verdict’s epoch (core epochRefusal) and signs it next', async () => {
    const { t, registered } = fakeTransport();
    const signer = new VerdictSigner('w1', 'g', t);
    signer.learnEpochs([
      { dependency: 'a', global: { epoch: 2 } },
      { dependency: 'b', global: { epoch: 2 } },
    ] as unknown as BreakerPlan[]);
    const sent = [v('a', 'open'), v('b', 'open')];
    const message = `POST /v1/heartbeats: 409 ${epochRefusal('breakers.1.envelope', 2, 5)}`;
    expect(signer.refused(message, sent)).toBe(true);
    expect(
      signer.refused(
        'POST /v1/heartbeats: 409 breakers.0.envelope: sequence number 1 was already used',
        sent,
      ),
    ).toBe(false);
    const next = [v('a', 'open'), v('b', 'open')];
    await signer.signOpen(next);
    const key = new Map([['ik-test', new Uint8Array(Buffer.from(registered[0]!.publicKey, 'base64'))]]);
    const epochOf = (i: number) =>
      (
        openEnvelope(next[i]!.envelope!, PAYLOAD_TYPES.verdict, key, crypto) as {
          statement: { epoch: number };
        }
      ).statement.epoch;
    expect([epochOf(0), epochOf(1)]).toEqual([2, 5]);
  });
});
