// RFC 6962 (and RFC 9162 §2.1) Merkle tree hashing: leaf = H(0x00 || data), node = H(0x01 || l || r),
// split at the largest power of two below n. Inclusion and consistency proofs and their checks.
import { concatBytes, equalBytes } from './Bytes.js';

export type Sha256 = (data: Uint8Array) => Uint8Array;

const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

export function leafHash(sha256: Sha256, data: Uint8Array): Uint8Array {
  return sha256(concatBytes(LEAF, data));
}

export function nodeHash(sha256: Sha256, left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concatBytes(NODE, left, right));
}

/** The largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
}

/** Subtree roots already computed for one list of leaves, by "from:to" (proofs reuse them). */
export type RootMemo = Map<string, Uint8Array>;

/** MTH of leaf hashes [from, to). The empty tree's hash is SHA-256 of nothing. */
export function rootOf(
  sha256: Sha256,
  leaves: readonly Uint8Array[],
  from = 0,
  to = leaves.length,
  memo?: RootMemo,
): Uint8Array {
  const n = to - from;
  if (n === 0) return sha256(new Uint8Array(0));
  if (n === 1) return leaves[from]!;
  const key = `${from}:${to}`;
  const known = memo?.get(key);
  if (known) return known;
  const k = split(n);
  const left = rootOf(sha256, leaves, from, from + k, memo);
  const root = nodeHash(sha256, left, rootOf(sha256, leaves, from + k, to, memo));
  memo?.set(key, root);
  return root;
}

/** PATH(m, D[0:n]): the audit path of leaf m in the tree of the first n leaves. */
export function inclusionProof(
  sha256: Sha256,
  leaves: readonly Uint8Array[],
  m: number,
  n = leaves.length,
  memo?: RootMemo,
): Uint8Array[] {
  if (!(Number.isInteger(m) && Number.isInteger(n) && m >= 0 && m < n && n <= leaves.length))
    throw new RangeError(`no leaf ${m} in a tree of ${n}`);
  const path = (m: number, from: number, to: number): Uint8Array[] => {
    if (to - from <= 1) return [];
    const k = split(to - from);
    return m < k
      ? [...path(m, from, from + k), rootOf(sha256, leaves, from + k, to, memo)]
      : [...path(m - k, from + k, to), rootOf(sha256, leaves, from, from + k, memo)];
  };
  return path(m, 0, n);
}

/** PROOF(m, D[0:n]): that the tree of the first m leaves is a prefix of the tree of n. */
export function consistencyProof(
  sha256: Sha256,
  leaves: readonly Uint8Array[],
  m: number,
  n = leaves.length,
  memo?: RootMemo,
): Uint8Array[] {
  if (!(Number.isInteger(m) && Number.isInteger(n) && m >= 0 && m <= n && n <= leaves.length))
    throw new RangeError(`no consistency between sizes ${m} and ${n}`);
  if (m === 0 || m === n) return [];
  const sub = (m: number, from: number, to: number, whole: boolean): Uint8Array[] => {
    const n = to - from;
    if (m === n) return whole ? [] : [rootOf(sha256, leaves, from, to, memo)];
    const k = split(n);
    return m <= k
      ? [...sub(m, from, from + k, whole), rootOf(sha256, leaves, from + k, to, memo)]
      : [...sub(m - k, from + k, to, false), rootOf(sha256, leaves, from, from + k, memo)];
  };
  return sub(m, 0, n, true);
}

/** RFC 9162 §2.1.3.2: does `proof` take leaf `index`'s hash to `root` in a tree of `size`? */
export function verifyInclusion(
  sha256: Sha256,
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size))
    return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sha256, p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(sha256, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(r, root);
}

/** RFC 9162 §2.1.4.2: is the tree (size1, root1) a prefix of (size2, root2)? */
export function verifyConsistency(
  sha256: Sha256,
  size1: number,
  size2: number,
  root1: Uint8Array,
  root2: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!(Number.isSafeInteger(size1) && Number.isSafeInteger(size2) && size1 >= 0 && size1 <= size2))
    return false;
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2);
  if (size1 === 0) return proof.length === 0; // the empty tree is a prefix of every tree
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(sha256, c, fr);
      sr = nodeHash(sha256, c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sha256, sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(fr, root1) && equalBytes(sr, root2);
}
