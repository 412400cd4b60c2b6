// Node's built-in crypto behind the receipts' injected port, for tests.
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { keyIdOf } from './Checkpoint.js';
import type { ReceiptCrypto, ReceiptSigner } from './Crypto.js';

export const nodeCrypto: ReceiptCrypto = {
  sha256: (d) => new Uint8Array(createHash('sha256').update(d).digest()),
  verify: (publicKey, message, signature) => {
    try {
      const key = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
        format: 'jwk',
      });
      return verify(null, message, key, signature);
    } catch {
      return false;
    }
  },
};

export function testSigner(name: string): ReceiptSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  return {
    keyId: keyIdOf(nodeCrypto.sha256, name, raw),
    publicKey: raw,
    sign: (m) => new Uint8Array(sign(null, m, privateKey)),
  };
}
