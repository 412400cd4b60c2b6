import { describe, expect, it } from 'vitest';
import { consistencyProof, leafHash, toBase64, utf8 } from '@recloser/core';
import type { DataSource } from 'typeorm';
import { nodeReceiptCrypto } from './node-crypto.js';
import type { SigningKeysService } from './signing-keys.service.js';
import { TransparencyLogService } from './transparency-log.service.js';

const sha256 = nodeReceiptCrypto.sha256;
const hashOf = (s: string) => Buffer.from(leafHash(sha256, utf8(s)));

/** log_head and log_leaves in memory, answering the two reads tree() makes; counts leaf rows read. */
function fakeLog(leaves: Buffer[]) {
  const log = { leaves, rowsRead: 0 };
  const db = {
    query: async (sql: string, params: unknown[]) => {
      if (sql.includes('FROM log_head h')) {
        const edge = log.leaves[Number(params[0])] ?? null;
        return [{ size: String(log.leaves.length), edge }];
      }
      if (sql.includes('FROM log_leaves WHERE idx >= $1')) {
        const [from, to] = params.map(Number) as [number, number];
        const rows = log.leaves.slice(from, to).map((h, i) => ({ idx: String(from + i), leaf_hash: h }));
        log.rowsRead += rows.length;
        return rows;
      }
      throw new Error(`unexpected query ${sql}`);
    },
  };
  const service = new TransparencyLogService(db as unknown as DataSource, {} as SigningKeysService);
  return { log, service };
}

const expected = (leaves: Buffer[], from: number) =>
  consistencyProof(
    sha256,
    leaves.map((b) => new Uint8Array(b)),
    from,
    leaves.length,
  ).map(toBase64);

describe('the transparency log tree', () => {
  it('reads each committed leaf once, however many requests, and proves over the whole tree', async () => {
    const { log, service } = fakeLog(Array.from({ length: 7 }, (_, i) => hashOf(`a${i}`)));
    expect((await service.consistency(3)).proof).toEqual(expected(log.leaves, 3));
    expect(log.rowsRead).toBe(7);
    expect((await service.consistency(5)).proof).toEqual(expected(log.leaves, 5));
    expect(log.rowsRead).toBe(7); // nothing new: no leaf read again
    log.leaves.push(...Array.from({ length: 6 }, (_, i) => hashOf(`b${i}`)));
    expect((await service.consistency(7)).proof).toEqual(expected(log.leaves, 7));
    expect(log.rowsRead).toBe(13); // only the six appended since
  });

  it('reads everything again when the stored log no longer holds the leaves it kept (a reset database)', async () => {
    const { log, service } = fakeLog(Array.from({ length: 5 }, (_, i) => hashOf(`a${i}`)));
    await service.consistency(2);
    log.leaves = Array.from({ length: 9 }, (_, i) => hashOf(`c${i}`)); // emptied, then grown past 5
    expect((await service.consistency(4)).proof).toEqual(expected(log.leaves, 4));
    log.leaves = log.leaves.slice(0, 3); // emptied, then grown less far
    expect((await service.consistency(1)).proof).toEqual(expected(log.leaves, 1));
  });
});
