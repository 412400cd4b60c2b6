import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  chainHash,
  type ChainedTransition,
  GENESIS_HASH,
  verifyChain,
} from './transition-chain.js';

const row = (seq: number, over: Partial<ChainedTransition> = {}): ChainedTransition => ({
  breakerId: 'b1',
  seq,
  from: 'closed',
  to: 'open',
  epoch: seq,
  step: null,
  actor: 'quorum',
  reason: 'quorum reached',
  figures: { open: 6, live: 10, threshold: 5 },
  formedBy: ['i0', 'i1'],
  at: '2026-12-02T10:00:00.000Z',
  ...over,
});

function chain(rows: ChainedTransition[]) {
  let prev = GENESIS_HASH;
  return rows.map((r) => {
    const hash = chainHash(prev, r);
    const out = { ...r, prevHash: prev, hash };
    prev = hash;
    return out;
  });
}

describe('transition chain', () => {
  it('canonical JSON ignores key order at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('verifies an untouched chain', () => {
    expect(verifyChain(chain([row(1), row(2), row(3)]))).toEqual({ ok: true, length: 3 });
  });

  it('finds an edited row', () => {
    const rows = chain([row(1), row(2), row(3)]);
    rows[1] = { ...rows[1]!, reason: 'nothing happened' };
    expect(verifyChain(rows)).toMatchObject({ ok: false, brokenAtSeq: 2 });
  });

  it('finds a deleted row', () => {
    const rows = chain([row(1), row(2), row(3)]);
    expect(verifyChain([rows[0]!, rows[2]!])).toMatchObject({ ok: false, brokenAtSeq: 3 });
  });

  it('finds a row re-hashed on its own (the next row still points at the old hash)', () => {
    const rows = chain([row(1), row(2), row(3)]);
    const edited = { ...rows[1]!, figures: { open: 1 } };
    rows[1] = {
      ...edited,
      hash: chainHash(edited.prevHash, { ...edited, prevHash: undefined, hash: undefined } as never),
    };
    expect(verifyChain(rows)).toMatchObject({ ok: false, brokenAtSeq: 3 });
  });

  it('covers the step a ramp transition left, when there is one', () => {
    const rows = chain([
      row(1),
      row(2, { actor: 'ramp', from: 'ramping', to: 'ramping', fromStep: 1, step: 2 }),
    ]);
    expect(verifyChain(rows)).toEqual({ ok: true, length: 2 });
    rows[1] = { ...rows[1]!, fromStep: 0 };
    expect(verifyChain(rows)).toMatchObject({ ok: false, brokenAtSeq: 2 });
  });
});
