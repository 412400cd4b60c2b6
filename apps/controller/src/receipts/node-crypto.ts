// Node's built-in crypto behind the receipts' port (core stays free of I/O): SHA-256 and Ed25519.
import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { keyIdOf, type ReceiptCrypto, type ReceiptSigner } from '@recloser/core';

export const nodeReceiptCrypto: ReceiptCrypto = {
  sha256: (d) => new Uint8Array(createHash('sha256').update(d).digest()),
  verify: (publicKey, message, signature) => {
    try {
      return verify(null, message, publicKeyFromRaw(publicKey), signature);
    } catch {
      return false; // a malformed key or signature is simply not a valid signature
    }
  },
};

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

/** The raw 32-byte Ed25519 public key of a key object (private or public). */
export function rawPublicKey(key: KeyObject): Uint8Array {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return new Uint8Array(Buffer.from(pub.export({ format: 'jwk' }).x!, 'base64url'));
}

/** A signer whose key id is the signed-note key id under `name` (the log's origin). */
export function signerFor(name: string, privateKey: KeyObject): ReceiptSigner {
  const publicKey = rawPublicKey(privateKey);
  return {
    keyId: keyIdOf(nodeReceiptCrypto.sha256, name, publicKey),
    publicKey,
    sign: (m) => new Uint8Array(sign(null, m, privateKey)),
  };
}
