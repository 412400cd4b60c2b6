// An instance's own Ed25519 key pair (made at start, never leaves the process) and its signed
// verdicts: a DSSE envelope over the canonical verdict statement, with a sequence number that only
// grows (the controller refuses one it has seen) and the breaker's epoch from the last plan.
import { createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type BreakerVerdict,
  type DsseEnvelope,
  PAYLOAD_TYPES,
  signEnvelope,
  verdictStatement,
} from '@recloser/core';

export class InstanceIdentity {
  /** base64 of the raw 32-byte public key (what is registered) */
  readonly publicKey: string;
  /** the id the controller gave the key; null until registered */
  keyId: string | null = null;
  private readonly privateKey: KeyObject;
  private seq = 0;

  constructor() {
    const { privateKey } = generateKeyPairSync('ed25519');
    this.privateKey = privateKey;
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    this.publicKey = Buffer.from(jwk.x!, 'base64url').toString('base64');
  }

  /** The verdict signed for `epoch` (null until the key is registered). */
  sign(instanceId: string, group: string, verdict: BreakerVerdict, epoch: number): DsseEnvelope | null {
    const keyId = this.keyId;
    if (keyId === null) return null;
    this.seq += 1;
    const statement = verdictStatement({ instanceId, group }, verdict, { seq: this.seq, epoch });
    const privateKey = this.privateKey;
    return signEnvelope(PAYLOAD_TYPES.verdict, statement, {
      keyId,
      publicKey: new Uint8Array(Buffer.from(this.publicKey, 'base64')),
      sign: (m) => new Uint8Array(sign(null, m, privateKey)),
    });
  }
}
