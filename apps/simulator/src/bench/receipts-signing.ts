// What a signed verdict costs (issue 15): an instance signing one locally open verdict (canonical
// JSON, PAE, Ed25519) and the controller opening it (signature, canonical re-encoding), in µs per
// verdict on this machine. Only verdicts that can change a decision are signed; routine CLOSED
// heartbeats pay none of it. `npm run bench -- receipts-signing`.
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  openEnvelope,
  PAYLOAD_TYPES,
  type ReceiptCrypto,
  signEnvelope,
  type VerdictStatement,
} from '@recloser/core';
import { formatTable } from './table.js';

const ROUNDS = 5;
const PER_ROUND = 2_000;

export async function run(): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  // as the controller does (apps/controller/src/receipts/node-crypto.ts): a key object from the raw key each time
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
  const signer = {
    keyId: 'ik-bench',
    publicKey: raw,
    sign: (m: Uint8Array) => new Uint8Array(sign(null, m, privateKey)),
  };
  const keys = new Map([['ik-bench', raw]]);
  const statement = (seq: number): VerdictStatement => ({
    type: 'recloser.verdict/v1',
    instanceId: 'worker-17',
    group: 'orders-consumer',
    dependency: 'llm-provider',
    state: 'open',
    evidence: {
      attempts: 40,
      successes: 0,
      byClass: { overload: 38, network: 2, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
      latencyP95Ms: 30000,
      ttftP95Ms: null,
      queueAgeMs: 1200,
    },
    seq,
    epoch: 7,
  });
  let bestSign = Infinity;
  let bestVerify = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const envelopes = [];
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < PER_ROUND; i++)
      envelopes.push(signEnvelope(PAYLOAD_TYPES.verdict, statement(i), signer));
    bestSign = Math.min(bestSign, Number(process.hrtime.bigint() - t0) / 1000 / PER_ROUND);
    t0 = process.hrtime.bigint();
    let ok = 0;
    for (const e of envelopes) if (openEnvelope(e, PAYLOAD_TYPES.verdict, keys, crypto).ok) ok += 1;
    bestVerify = Math.min(bestVerify, Number(process.hrtime.bigint() - t0) / 1000 / PER_ROUND);
    if (ok !== PER_ROUND) throw new Error(`only ${ok} of ${PER_ROUND} envelopes verified`);
  }
  console.log(
    formatTable([
      ['signed verdict (best of 5 rounds of 2,000)', 'µs/verdict'],
      ['instance: sign (canonical JSON + PAE + Ed25519)', bestSign.toFixed(1)],
      ['controller: open (Ed25519 verify + canonical re-encoding)', bestVerify.toFixed(1)],
    ]),
  );
}
