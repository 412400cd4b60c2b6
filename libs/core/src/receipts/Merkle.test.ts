import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './Bytes.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from './Merkle.js';
import { nodeCrypto } from './nodeCrypto.test-support.js';

const H = nodeCrypto.sha256;
// RFC 6962 reference vectors (transparency-dev/merkle testonly): leaves, roots per size 0..8
const DATA = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(fromHex);
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const LEAVES = DATA.map((d) => leafHash(H, d));
const hexes = (p: Uint8Array[]) => p.map(toHex);

describe('RFC 6962 Merkle tree', () => {
  it('matches the reference roots for every size 0..8', () => {
    for (let n = 0; n <= 8; n++) expect(toHex(rootOf(H, LEAVES.slice(0, n)))).toBe(ROOTS[n]);
  });

  it('matches the reference inclusion proofs', () => {
    expect(hexes(inclusionProof(H, LEAVES, 0, 8))).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ]);
    expect(hexes(inclusionProof(H, LEAVES, 5, 8))).toEqual([
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
    // a one-leaf tree: empty path, the leaf is the root
    expect(inclusionProof(H, LEAVES, 0, 1)).toEqual([]);
    expect(verifyInclusion(H, 0, 1, LEAVES[0]!, [], fromHex(ROOTS[1]!))).toBe(true);
  });

  it('matches the reference consistency proofs', () => {
    expect(hexes(consistencyProof(H, LEAVES, 1, 8))).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ]);
    expect(hexes(consistencyProof(H, LEAVES, 6, 8))).toEqual([
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
    expect(hexes(consistencyProof(H, LEAVES, 2, 5))).toEqual([
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ]);
  });

  it('edge cases: equal sizes need an empty proof and equal roots; size 0 is a prefix of anything', () => {
    const r = fromHex(ROOTS[8]!);
    expect(verifyConsistency(H, 8, 8, r, r, [])).toBe(true);
    expect(verifyConsistency(H, 8, 8, r, fromHex(ROOTS[7]!), [])).toBe(false);
    expect(verifyConsistency(H, 8, 8, r, r, [r])).toBe(false);
    expect(verifyConsistency(H, 0, 8, fromHex(ROOTS[0]!), r, [])).toBe(true);
    expect(verifyConsistency(H, 3, 8, fromHex(ROOTS[3]!), r, [])).toBe(false);
    expect(verifyConsistency(H, 9, 8, r, r, [])).toBe(false);
    expect(verifyInclusion(H, 8, 8, LEAVES[0]!, [], r)).toBe(false);
    expect(verifyInclusion(H, -1, 8, LEAVES[0]!, [], r)).toBe(false);
    expect(() => inclusionProof(H, LEAVES, 8, 8)).toThrow();
  });

  const leavesArb = fc
    .array(fc.uint8Array({ maxLength: 8 }), { minLength: 1, maxLength: 40 })
    .map((ds) => ds.map((d, i) => leafHash(H, Uint8Array.of(...d, i)))); // distinct leaves

  it("every leaf's inclusion proof verifies in every tree size, and a flipped byte fails", () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const n = 1 + (a % leaves.length);
        const m = b % n;
        const root = rootOf(H, leaves, 0, n);
        const proof = inclusionProof(H, leaves, m, n);
        expect(verifyInclusion(H, m, n, leaves[m]!, proof, root)).toBe(true);
        const bad = Uint8Array.from(leaves[m]!);
        bad[b % 32] ^= 1;
        expect(verifyInclusion(H, m, n, bad, proof, root)).toBe(false);
        if (proof.length > 0) {
          const p = proof.map((x) => Uint8Array.from(x));
          p[b % p.length]![a % 32] ^= 0x80;
          expect(verifyInclusion(H, m, n, leaves[m]!, p, root)).toBe(false);
        }
        // the same proof at another index: refused
        if (n > 1) expect(verifyInclusion(H, (m + 1) % n, n, leaves[m]!, proof, root)).toBe(false);
      }),
    );
  });

  it('consistency between any two sizes verifies, and a changed old leaf (a fork) fails', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), fc.nat(), (leaves, a, b) => {
        const n = 1 + (a % leaves.length);
        const m = 1 + (b % n);
        const proof = consistencyProof(H, leaves, m, n);
        const r1 = rootOf(H, leaves, 0, m);
        const r2 = rootOf(H, leaves, 0, n);
        expect(verifyConsistency(H, m, n, r1, r2, proof)).toBe(true);
        const forked = leaves.slice(0, n).map((l) => Uint8Array.from(l));
        forked[b % m]![0] ^= 1;
        expect(verifyConsistency(H, m, n, r1, rootOf(H, forked), proof)).toBe(false);
      }),
    );
  });

  it('proofs from one shared memo of subtree roots equal those computed afresh', () => {
    fc.assert(
      fc.property(leavesArb, fc.nat(), (leaves, a) => {
        const memo = new Map<string, Uint8Array>();
        const n = leaves.length;
        const m = a % n;
        expect(toHex(rootOf(H, leaves, 0, n, memo))).toBe(toHex(rootOf(H, leaves)));
        expect(hexes(inclusionProof(H, leaves, m, n, memo))).toEqual(hexes(inclusionProof(H, leaves, m, n)));
        expect(hexes(consistencyProof(H, leaves, m + 1, n, memo))).toEqual(
          hexes(consistencyProof(H, leaves, m + 1, n)),
        );
      }),
    );
  });
});
