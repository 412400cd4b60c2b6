import { createHash } from 'node:crypto';

/** prevHash of a breaker's first transition. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields of a transition row that its hash covers (everything but the hashes and the row id). */
export interface ChainedTransition {
  breakerId: string;
  seq: number;
  from: string;
  to: string;
  epoch: number;
  /** the ramp step left; only hashed when set (rows outside a ramp hash as they did before it existed) */
  fromStep?: number | null;
  step: number | null;
  actor: string;
  reason: string;
  figures: Record<string, unknown>;
  formedBy: string[];
  /** ISO-8601, millisecond precision */
  at: string;
}

/** JSON with object keys sorted at every depth, so Postgres' jsonb key order cannot change a hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function chainHash(prevHash: string, row: ChainedTransition): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(row)).digest('hex');
}

export type ChainCheck = { ok: true; length: number } | { ok: false; brokenAtSeq: number; why: string };

/** Re-derives every hash of one breaker's rows (in seq order) and reports the first row that does not match. */
export function verifyChain(
  rows: readonly (ChainedTransition & { prevHash: string; hash: string })[],
): ChainCheck {
  let prev = GENESIS_HASH;
  for (const [i, row] of rows.entries()) {
    if (row.seq !== i + 1) return { ok: false, brokenAtSeq: row.seq, why: `expected seq ${i + 1}` };
    if (row.prevHash !== prev)
      return { ok: false, brokenAtSeq: row.seq, why: 'prevHash does not match the row before' };
    const { prevHash: _p, hash, ...fields } = row;
    if (chainHash(prev, fields) !== hash)
      return { ok: false, brokenAtSeq: row.seq, why: 'hash does not match the row' };
    prev = hash;
  }
  return { ok: true, length: rows.length };
}
