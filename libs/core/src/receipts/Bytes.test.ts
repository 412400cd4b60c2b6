import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, fromHex, fromUtf8, isWellFormed, toBase64, toHex, utf8 } from './Bytes.js';

describe('bytes', () => {
  it('UTF-8 matches Node for any well-formed string, and round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(Buffer.from(utf8(s)).equals(Buffer.from(s, 'utf8'))).toBe(true);
        expect(fromUtf8(utf8(s))).toBe(s);
      }),
    );
  });

  it('refuses lone surrogates and malformed UTF-8', () => {
    expect(() => utf8('a\ud800b')).toThrow(/lone surrogate/);
    expect(isWellFormed('a\udc00')).toBe(false);
    expect(isWellFormed('\ud83d\ude00')).toBe(true);
    expect(() => fromUtf8(Uint8Array.of(0xc0, 0x80))).toThrow(/bad UTF-8/); // overlong
    expect(() => fromUtf8(Uint8Array.of(0xe2, 0x82))).toThrow(/bad UTF-8/); // truncated
  });

  it('base64 and hex match Node and round-trip; non-canonical base64 is refused', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (b) => {
        expect(toBase64(b)).toBe(Buffer.from(b).toString('base64'));
        expect(fromBase64(toBase64(b))).toEqual(b);
        expect(fromHex(toHex(b))).toEqual(b);
      }),
    );
    expect(() => fromBase64('QQ=')).toThrow();
    expect(() => fromBase64('QR==')).toThrow(/canonical/);
  });
});
