// DSSE (Dead Simple Signing Envelope, secure-systems-lab/dsse v1): a signature covers the
// pre-authentication encoding of the payload type and the payload bytes, never a re-serialisation.
import { concatBytes, fromBase64, fromUtf8, toBase64, toHex, utf8 } from './Bytes.js';
import { canonicalize } from './Canonical.js';
import type { ReceiptCrypto, ReceiptSigner } from './Crypto.js';

/** Payload types of Recloser's statements (a verifier refuses any other). */
export const PAYLOAD_TYPES = {
  verdict: 'application/vnd.recloser.verdict.v1+json',
  quorumCertificate: 'application/vnd.recloser.quorum-certificate.v1+json',
  bundleManifest: 'application/vnd.recloser.bundle-manifest.v1+json',
} as const;

export interface DsseSignature {
  keyid: string;
  /** base64 */
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the payload bytes (canonical JSON for every Recloser statement) */
  payload: string;
  signatures: DsseSignature[];
}

/** PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal bytes. */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array {
  const type = utf8(payloadType);
  return concatBytes(utf8(`DSSEv1 ${type.length} `), type, utf8(` ${payload.length} `), payload);
}

/** Signs a statement: its canonical JSON is the payload. */
export function signEnvelope(payloadType: string, statement: unknown, signer: ReceiptSigner): DsseEnvelope {
  const payload = utf8(canonicalize(statement));
  const sig = signer.sign(pae(payloadType, payload));
  return {
    payloadType,
    payload: toBase64(payload),
    signatures: [{ keyid: signer.keyId, sig: toBase64(sig) }],
  };
}

export type EnvelopeCheck = { ok: true; statement: unknown; keyId: string } | { ok: false; why: string };

/**
 * Checks an envelope: its payload type, a signature by one of `keys` (key id → raw public key) that
 * verifies over PAE, and a payload that is the canonical JSON of what it decodes to.
 */
export function openEnvelope(
  envelope: DsseEnvelope,
  payloadType: string,
  keys: ReadonlyMap<string, Uint8Array>,
  crypto: ReceiptCrypto,
): EnvelopeCheck {
  if (!envelope || typeof envelope !== 'object') return { ok: false, why: 'not an envelope' };
  if (envelope.payloadType !== payloadType)
    return {
      ok: false,
      why: `payload type ${String(envelope.payloadType)} where ${payloadType} was expected`,
    };
  let payload: Uint8Array;
  let statement: unknown;
  try {
    payload = fromBase64(envelope.payload);
    statement = JSON.parse(fromUtf8(payload));
  } catch {
    return { ok: false, why: 'payload is not base64 of UTF-8 JSON' };
  }
  const signatures = Array.isArray(envelope.signatures) ? envelope.signatures : [];
  if (signatures.length === 0) return { ok: false, why: 'no signature' };
  const message = pae(payloadType, payload);
  let unknownKey: string | null = null;
  for (const s of signatures) {
    const key = keys.get(s?.keyid);
    if (!key) {
      unknownKey ??= String(s?.keyid);
      continue;
    }
    let sig: Uint8Array;
    try {
      sig = fromBase64(s.sig);
    } catch {
      continue;
    }
    if (crypto.verify(key, message, sig)) {
      let again: string;
      try {
        again = canonicalize(statement);
      } catch {
        return { ok: false, why: 'payload has no canonical form' };
      }
      if (again !== fromUtf8(payload)) return { ok: false, why: 'payload is not canonical JSON (RFC 8785)' };
      return { ok: true, statement, keyId: s.keyid };
    }
  }
  return {
    ok: false,
    why:
      unknownKey !== null && signatures.length === 1
        ? `signed by unknown key ${unknownKey}`
        : 'signature does not verify',
  };
}

/** hex SHA-256 of an envelope's canonical JSON: how a log entry commits to a certificate. */
export function envelopeDigest(sha256: (d: Uint8Array) => Uint8Array, envelope: DsseEnvelope): string {
  return toHex(sha256(utf8(canonicalize(envelope))));
}
