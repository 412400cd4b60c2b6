import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64, toHex, utf8 } from './Bytes.js';
import {
  checkpointBody,
  keyIdOf,
  openCheckpoint,
  parseVerifierKey,
  signCheckpoint,
  verifierKey,
} from './Checkpoint.js';
import { nodeCrypto, testSigner } from './nodeCrypto.test-support.js';

const H = nodeCrypto.sha256;

describe('signed-note checkpoints', () => {
  it('key hash is SHA-256(name ‖ "\\n" ‖ 0x01 ‖ key)[:4], as signed-note defines', () => {
    const key = new Uint8Array(32).fill(7);
    const expected = toHex(H(Uint8Array.of(...utf8('example.com/log\n'), 1, ...key)).slice(0, 4));
    expect(keyIdOf(H, 'example.com/log', key)).toBe(`example.com/log+${expected}`);
    const vkey = verifierKey(H, 'example.com/log', key);
    expect(parseVerifierKey(H, vkey)).toEqual({
      name: 'example.com/log',
      keyId: `example.com/log+${expected}`,
      publicKey: key,
    });
    expect(parseVerifierKey(H, vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+'))).toBeNull();
  });

  const signer = testSigner('recloser.test/log');
  const keys = new Map([[signer.keyId, signer.publicKey]]);
  const cp = { origin: 'recloser.test/log', size: 5, root: toBase64(H(new Uint8Array(0))) };

  it('formats the body and signs it; the note opens with the key', () => {
    expect(checkpointBody(cp)).toBe(`recloser.test/log\n5\n${cp.root}\n`);
    const note = signCheckpoint(cp, signer);
    expect(note.startsWith(`${checkpointBody(cp)}\n\u2014 recloser.test/log `)).toBe(true);
    expect(openCheckpoint(note, keys, nodeCrypto)).toEqual({ ok: true, checkpoint: cp, keyId: signer.keyId });
  });

  it('refuses a changed size or root, and a key it does not know', () => {
    const note = signCheckpoint(cp, signer);
    expect(openCheckpoint(note.replace('\n5\n', '\n6\n'), keys, nodeCrypto).ok).toBe(false);
    const otherRoot = toBase64(H(Uint8Array.of(1)));
    expect(openCheckpoint(note.replace(cp.root, otherRoot), keys, nodeCrypto).ok).toBe(false);
    expect(openCheckpoint(note, new Map(), nodeCrypto)).toEqual({
      ok: false,
      why: 'checkpoint signature does not verify against any known key',
    });
    expect(openCheckpoint('nonsense', keys, nodeCrypto).ok).toBe(false);
    expect(fromBase64(cp.root).length).toBe(32);
  });
});
