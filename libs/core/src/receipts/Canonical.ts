// RFC 8785 JSON Canonicalization Scheme: what is signed and hashed is one exact byte string, so a
// verifier can re-encode a statement and compare. Ratios are carried as integer basis points.
import { isWellFormed } from './Bytes.js';

/**
 * The canonical JSON text of a value: object keys sorted by UTF-16 code units, no whitespace,
 * numbers in ECMAScript's shortest form, strings escaped as JSON.stringify does. Refuses what has
 * no canonical form (non-finite numbers, lone surrogates, undefined, functions, bigints).
 */
export function canonicalize(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${value} is not a finite number`);
      return JSON.stringify(value); // ECMAScript Number::toString, which RFC 8785 adopts; -0 gives "0"
    case 'string':
      if (!isWellFormed(value)) throw new TypeError('canonical JSON: a string holds a lone surrogate');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
      const keys = Object.keys(value).sort(); // default sort compares UTF-16 code units, as RFC 8785 says
      const parts: string[] = [];
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue; // as JSON.stringify: an absent field
        if (!isWellFormed(k)) throw new TypeError('canonical JSON: a key holds a lone surrogate');
        parts.push(`${JSON.stringify(k)}:${canonicalize(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`canonical JSON: a ${typeof value} has no JSON form`);
  }
}

/** A ratio in [0, 1] as integer basis points (0.95 → 9500): signed payloads carry no float ratios. */
export function toBasisPoints(ratio: number): number {
  if (!Number.isFinite(ratio)) throw new RangeError(`ratio ${ratio} is not finite`);
  return Math.round(ratio * 10_000);
}

export function fromBasisPoints(bps: number): number {
  return bps / 10_000;
}
