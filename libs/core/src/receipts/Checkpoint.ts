// Signed checkpoints in the C2SP signed-note format (tlog-checkpoint): the body is
// "<origin>\n<size>\n<base64 root>\n", then a blank line and one "— <name> <base64(key hash ‖ sig)>"
// line per signature. Key ids are "<name>+<8 hex digits of the key hash>", as in verifier keys.
import { concatBytes, fromBase64, toBase64, toHex, utf8 } from './Bytes.js';
import type { ReceiptCrypto, ReceiptSigner } from './Crypto.js';

export interface Checkpoint {
  origin: string;
  size: number;
  /** base64 of the 32-byte RFC 6962 root */
  root: string;
}

const ED25519 = 0x01;

/** key hash = SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key)[:4] (signed-note, Ed25519). */
export function keyHash(
  sha256: (d: Uint8Array) => Uint8Array,
  name: string,
  publicKey: Uint8Array,
): Uint8Array {
  return sha256(concatBytes(utf8(`${name}\n`), Uint8Array.of(ED25519), publicKey)).slice(0, 4);
}

export function keyIdOf(sha256: (d: Uint8Array) => Uint8Array, name: string, publicKey: Uint8Array): string {
  return `${name}+${toHex(keyHash(sha256, name, publicKey))}`;
}

/** The verifier key text: "<name>+<hash hex>+<base64(0x01 ‖ public key)>". */
export function verifierKey(
  sha256: (d: Uint8Array) => Uint8Array,
  name: string,
  publicKey: Uint8Array,
): string {
  return `${keyIdOf(sha256, name, publicKey)}+${toBase64(concatBytes(Uint8Array.of(ED25519), publicKey))}`;
}

/** A verifier key's key id and raw public key, checked against its own hash. */
export function parseVerifierKey(
  sha256: (d: Uint8Array) => Uint8Array,
  vkey: string,
): { name: string; keyId: string; publicKey: Uint8Array } | null {
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(vkey);
  if (!m) return null;
  let raw: Uint8Array;
  try {
    raw = fromBase64(m[3]!);
  } catch {
    return null;
  }
  if (raw.length !== 33 || raw[0] !== ED25519) return null;
  const publicKey = raw.slice(1);
  const keyId = keyIdOf(sha256, m[1]!, publicKey);
  return keyId === `${m[1]}+${m[2]}` ? { name: m[1]!, keyId, publicKey } : null;
}

export function checkpointBody(c: Checkpoint): string {
  if (!/^[^\n]+$/.test(c.origin)) throw new RangeError('origin must be one non-empty line');
  return `${c.origin}\n${c.size}\n${c.root}\n`;
}

/** The note: body, blank line, the signer's line. The signer's key id names it (`name+hash`). */
export function signCheckpoint(c: Checkpoint, signer: ReceiptSigner): string {
  const body = checkpointBody(c);
  const [name, hash] = signer.keyId.split('+');
  const sig = signer.sign(utf8(body));
  return `${body}\n\u2014 ${name} ${toBase64(concatBytes(fromHexKeyHash(hash!), sig))}\n`;
}

function fromHexKeyHash(h: string): Uint8Array {
  return Uint8Array.from([0, 2, 4, 6].map((i) => parseInt(h.slice(i, i + 2), 16)));
}

export type CheckpointCheck =
  { ok: true; checkpoint: Checkpoint; keyId: string } | { ok: false; why: string };

/** Parses a note and checks that one signature by a known key verifies over its body. */
export function openCheckpoint(
  note: string,
  keys: ReadonlyMap<string, Uint8Array>,
  crypto: ReceiptCrypto,
): CheckpointCheck {
  if (typeof note !== 'string') return { ok: false, why: 'checkpoint note is not text' };
  const cut = note.indexOf('\n\n');
  if (cut < 0) return { ok: false, why: 'checkpoint note has no signature block' };
  const body = note.slice(0, cut + 1);
  const lines = body.split('\n');
  const size = Number(lines[1]);
  if (
    lines.length < 4 ||
    !lines[0] ||
    !/^(0|[1-9][0-9]*)$/.test(lines[1] ?? '') ||
    !Number.isSafeInteger(size)
  )
    return { ok: false, why: 'checkpoint body is not "origin, size, root"' };
  let root: Uint8Array;
  try {
    root = fromBase64(lines[2]!);
  } catch {
    return { ok: false, why: 'checkpoint root is not base64' };
  }
  if (root.length !== 32) return { ok: false, why: 'checkpoint root is not 32 bytes' };
  const checkpoint: Checkpoint = { origin: lines[0], size, root: lines[2]! };
  const sigLines = note
    .slice(cut + 2)
    .split('\n')
    .filter((l) => l.length > 0);
  for (const line of sigLines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) return { ok: false, why: 'checkpoint signature line is malformed' };
    let raw: Uint8Array;
    try {
      raw = fromBase64(m[2]!);
    } catch {
      continue;
    }
    if (raw.length !== 68) continue;
    const keyId = `${m[1]}+${toHex(raw.slice(0, 4))}`;
    const key = keys.get(keyId);
    if (key && crypto.verify(key, utf8(body), raw.slice(4))) return { ok: true, checkpoint, keyId };
  }
  return { ok: false, why: 'checkpoint signature does not verify against any known key' };
}
