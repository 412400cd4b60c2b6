import { describe, expect, it } from 'vitest';
import { fromUtf8, toBase64, utf8 } from './Bytes.js';
import { openEnvelope, pae, PAYLOAD_TYPES, signEnvelope } from './Dsse.js';
import { nodeCrypto, testSigner } from './nodeCrypto.test-support.js';

describe('DSSE', () => {
  it('PAE matches the DSSE spec example', () => {
    // secure-systems-lab/dsse protocol.md: PAE("http://example.com/HelloWorld", "hello world")
    expect(fromUtf8(pae('http://example.com/HelloWorld', utf8('hello world')))).toBe(
      'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
    );
    // lengths count bytes, not characters
    expect(fromUtf8(pae('t', utf8('é')))).toBe('DSSEv1 1 t 2 é');
  });

  const signer = testSigner('ctl');
  const keys = new Map([[signer.keyId, signer.publicKey]]);
  const statement = { b: 1, a: 'x', ratioBps: 9500 };

  it('signs canonical JSON and opens it again', () => {
    const env = signEnvelope(PAYLOAD_TYPES.verdict, statement, signer);
    expect(fromUtf8(Buffer.from(env.payload, 'base64'))).toBe('{"a":"x","b":1,"ratioBps":9500}');
    const opened = openEnvelope(env, PAYLOAD_TYPES.verdict, keys, nodeCrypto);
    expect(opened).toEqual({ ok: true, statement: { a: 'x', b: 1, ratioBps: 9500 }, keyId: signer.keyId });
  });

  it('refuses a changed payload, another type, an unknown key, a non-canonical payload', () => {
    const env = signEnvelope(PAYLOAD_TYPES.verdict, statement, signer);
    const changed = { ...env, payload: toBase64(utf8('{"a":"y","b":1,"ratioBps":9500}')) };
    expect(openEnvelope(changed, PAYLOAD_TYPES.verdict, keys, nodeCrypto)).toEqual({
      ok: false,
      why: 'signature does not verify',
    });
    expect(openEnvelope(env, PAYLOAD_TYPES.quorumCertificate, keys, nodeCrypto).ok).toBe(false);
    const other = testSigner('ctl');
    const forged = signEnvelope(PAYLOAD_TYPES.verdict, statement, other);
    expect(openEnvelope(forged, PAYLOAD_TYPES.verdict, keys, nodeCrypto)).toEqual({
      ok: false,
      why: `signed by unknown key ${other.keyId}`,
    });
    // a valid signature over a payload that is not canonical (spaces): refused
    const loose = utf8('{ "a": "x" }');
    const sig = signer.sign(pae(PAYLOAD_TYPES.verdict, loose));
    const nonCanonical = {
      payloadType: PAYLOAD_TYPES.verdict,
      payload: toBase64(loose),
      signatures: [{ keyid: signer.keyId, sig: toBase64(sig) }],
    };
    expect(openEnvelope(nonCanonical, PAYLOAD_TYPES.verdict, keys, nodeCrypto)).toEqual({
      ok: false,
      why: 'payload is not canonical JSON (RFC 8785)',
    });
  });
});
