// Byte helpers the receipts need without Node's Buffer (libs/core runs anywhere): UTF-8, base64, hex.
import { LONE_SURROGATE } from '../input/InputRules.js';

/** UTF-8 bytes of a well-formed string; a lone surrogate is refused (it has no UTF-8 form to sign). */
export function utf8(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) throw new RangeError(`lone surrogate at ${i}`);
      c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      i += 1;
    } else if (c >= 0xdc00 && c <= 0xdfff) throw new RangeError(`lone surrogate at ${i}`);
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** Decodes UTF-8; malformed bytes are refused (a signed payload is never "repaired"). */
export function fromUtf8(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xf0 && b < 0xf5 ? 3 : b >= 0xe0 ? 2 : b >= 0xc2 && b < 0xe0 ? 1 : -1;
    if (need < 0 || i + need > bytes.length - 1) throw new RangeError(`bad UTF-8 at ${i}`);
    let c = need === 0 ? b : b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const n = bytes[i + k]!;
      if ((n & 0xc0) !== 0x80) throw new RangeError(`bad UTF-8 at ${i + k}`);
      c = (c << 6) | (n & 63);
    }
    const min = [0, 0x80, 0x800, 0x10000][need]!;
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) throw new RangeError(`bad UTF-8 at ${i}`);
    s += String.fromCodePoint(c);
    i += need + 1;
  }
  return s;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 with padding (what DSSE and signed notes use). */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!,
      b = bytes[i + 1],
      c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    s += B64[n >> 18]! + B64[(n >> 12) & 63]!;
    s += b === undefined ? '=' : B64[(n >> 6) & 63]!;
    s += c === undefined ? '=' : B64[n & 63]!;
  }
  return s;
}

const B64_VALUE = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_VALUE[B64.charCodeAt(i)] = i;

/** Strict standard base64: padding required, unused bits zero (one text per byte string). */
export function fromBase64(s: string): Uint8Array {
  if (s.length % 4 !== 0) throw new RangeError('not base64');
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    const last = i + 4 === s.length;
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const code = s.charCodeAt(i + k);
      const isPad = code === 61 && last && k >= 4 - pad;
      const v = isPad ? 0 : code < 128 ? B64_VALUE[code]! : -1;
      if (v < 0) throw new RangeError('not base64');
      n = (n << 6) | v;
    }
    if (last && ((pad === 1 && (n & 0xff) !== 0) || (pad === 2 && (n & 0xffff) !== 0)))
      throw new RangeError('not canonical base64');
    out[o++] = n >> 16;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

export function fromHex(s: string): Uint8Array {
  if (s.length % 2 !== 0 || !/^[0-9a-f]*$/.test(s)) throw new RangeError('not lower-case hex');
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** Whether a string is well-formed UTF-16 (no lone surrogate), i.e. has a UTF-8 form. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
