// The receipts' only contact with cryptography, injected like the clock: SHA-256 and Ed25519
// verification (signing stays with whoever holds a key). Node's built-in crypto provides them
// in the controller, the SDK and the verifier; tests pass the same.

export interface ReceiptCrypto {
  sha256(data: Uint8Array): Uint8Array;
  /** Ed25519 over `message` with a raw 32-byte public key */
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

/** Signs with one private key; `keyId` names its public key. */
export interface ReceiptSigner {
  keyId: string;
  /** the raw 32-byte Ed25519 public key */
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}
