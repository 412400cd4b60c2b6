import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.js';

describe('webhook signature', () => {
  const body = '{"id":"e1","type":"breaker.opened"}';

  it('is HMAC-SHA256 over "<t>.<body>", hex, in t=…,v1=…', () => {
    // echo -n '1700000000.{"id":"e1","type":"breaker.opened"}' | openssl dgst -sha256 -hmac s3cret
    expect(signatureHeader('s3cret', 1_700_000_000, body)).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(signatureHeader('s3cret', 1_700_000_000, body)).toBe(
      signatureHeader('s3cret', 1_700_000_000, body),
    );
    expect(signatureHeader('other', 1_700_000_000, body)).not.toBe(
      signatureHeader('s3cret', 1_700_000_000, body),
    );
  });

  it('verifies the right secret and body within the tolerance, and nothing else', () => {
    const h = signatureHeader('s3cret', 1000, body);
    expect(verifySignature('s3cret', h, body, 1000)).toBe(true);
    expect(verifySignature('s3cret', h, body, 1300)).toBe(true);
    expect(verifySignature('s3cret', h, body, 1301)).toBe(false);
    expect(verifySignature('wrong', h, body, 1000)).toBe(false);
    expect(verifySignature('s3cret', h, body + ' ', 1000)).toBe(false);
    expect(verifySignature('s3cret', h.replace('t=1000', 't=1001'), body, 1000)).toBe(false);
    expect(verifySignature('s3cret', undefined, body, 1000)).toBe(false);
    expect(verifySignature('s3cret', 'garbage', body, 1000)).toBe(false);
  });
});
