// The transparency log on Postgres: one leaf per transition, appended in the transaction that
// writes the transition (under the breaker's lock) and serialised across replicas by the single
// log_head row (SELECT … FOR UPDATE), so leaf indexes are dense and in commit order. Trees, proofs
// and checkpoints are computed from the stored leaf hashes with core's RFC 6962 code.
import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  assembleBundle,
  type Bundle,
  canonicalize,
  consistencyProof,
  type DsseEnvelope,
  envelopeDigest,
  type GateThresholds,
  inclusionProof,
  judgedGateThresholds,
  type InstanceKeyInfo,
  leafHash,
  type LogLeafStatement,
  rootOf,
  type RootMemo,
  type ShiftLogStatement,
  signCheckpoint,
  toBase64,
  utf8,
} from '@recloser/core';
import { DataSource, type EntityManager } from 'typeorm';
import type { TransitionEntity } from '../transitions/transition.entity.js';
import { logEntryOf, wellFormed } from './log-entry.js';
import { nodeReceiptCrypto } from './node-crypto.js';
import { SigningKeysService } from './signing-keys.service.js';

const sha256 = nodeReceiptCrypto.sha256;
/** earlier checkpoints a bundle proves itself consistent with (besides ?since=) */
const CONSISTENCY_FROM_RECENT = 8;

export interface SignedCheckpoint {
  origin: string;
  size: number;
  root: string;
  note: string;
  keyId: string;
}

/** Leaf hashes of the committed tree and the subtree roots computed over them so far. */
interface Tree {
  leaves: Uint8Array[];
  memo: RootMemo;
}

export interface LeafProof {
  leafIndex: number;
  treeSize: number;
  inclusionProof: string[];
}

@Injectable()
export class TransparencyLogService {
  /**
   * The committed leaf hashes read so far, in index order. The log is append-only and a leaf below
   * the head never changes, so each request reads only the leaves committed since the last one.
   */
  private kept: Tree = { leaves: [], memo: new Map() };

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly keys: SigningKeysService,
  ) {}

  /**
   * Appends one leaf per transition row, inside the caller's transaction (which holds the breaker's
   * lock). A quorum OPEN's certificate is stored and its digest committed to by the leaf.
   */
  async append(
    manager: EntityManager,
    breaker: { id: string; group: string; dependency: string },
    rows: readonly TransitionEntity[],
    extra: { certificate?: DsseEnvelope | null; gateThresholds?: GateThresholds | null } = {},
  ): Promise<void> {
    if (rows.length === 0) return;
    const [head] = (await manager.query(`SELECT size FROM log_head WHERE id = 1 FOR UPDATE`)) as {
      size: string;
    }[];
    let idx = Number(head!.size);
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (const row of rows) {
      const opensByQuorum = row.actor === 'quorum' && row.to === 'open';
      const certificate = opensByQuorum && extra.certificate ? extra.certificate : null;
      const digest = certificate ? envelopeDigest(sha256, certificate) : null;
      const entry = logEntryOf(row, breaker, {
        certificate: digest,
        // the thresholds the move was judged by: the pool's, tightened for a clean shedder
        gateThresholds:
          row.actor === 'ramp' && extra.gateThresholds
            ? judgedGateThresholds(extra.gateThresholds, row.figures as { shedsCleanly?: boolean })
            : null,
      });
      const leaf = utf8(canonicalize(entry));
      const p = values.length;
      tuples.push(`($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5})`);
      values.push(idx, breaker.id, row.id, Buffer.from(leaf), Buffer.from(leafHash(sha256, leaf)));
      if (certificate)
        await manager.query(
          `INSERT INTO quorum_certificates (transition_id, breaker_id, digest, envelope) VALUES ($1, $2, $3, $4)`,
          [row.id, breaker.id, digest, JSON.stringify(certificate)],
        );
      idx += 1;
    }
    await manager.query(
      `INSERT INTO log_leaves (idx, breaker_id, transition_id, leaf, leaf_hash) VALUES ${tuples.join(', ')}`,
      values,
    );
    await manager.query(`UPDATE log_head SET size = $1 WHERE id = 1`, [idx]);
  }

  /**
   * Appends a shift plan's phase change (issue 14) as one leaf of the source region's breaker, in
   * the caller's transaction (which holds that shift's row lock); numbered by its `seq`.
   */
  async appendShift(manager: EntityManager, statement: ShiftLogStatement): Promise<void> {
    const [head] = (await manager.query(`SELECT size FROM log_head WHERE id = 1 FOR UPDATE`)) as {
      size: string;
    }[];
    const idx = Number(head!.size);
    const leaf = utf8(canonicalize(wellFormed(statement)));
    await manager.query(
      `INSERT INTO log_leaves (idx, breaker_id, shift_seq, leaf, leaf_hash) VALUES ($1, $2, $3, $4, $5)`,
      [idx, statement.breakerId, statement.seq, Buffer.from(leaf), Buffer.from(leafHash(sha256, leaf))],
    );
    await manager.query(`UPDATE log_head SET size = $1 WHERE id = 1`, [idx + 1]);
  }

  /**
   * The committed tree: its size, then the leaf hashes below it (appends commit leaves and head
   * together). Read incrementally: the head and the last kept leaf (a database emptied or restored
   * under this process no longer holds it: everything is read again), then the leaves since.
   */
  private async tree(): Promise<Tree> {
    const kept = this.kept.leaves.length;
    const [head] = (await this.db.query(
      `SELECT h.size, l.leaf_hash AS edge FROM log_head h LEFT JOIN log_leaves l ON l.idx = $1 WHERE h.id = 1`,
      [kept - 1],
    )) as { size: string; edge: Buffer | null }[];
    const size = Number(head?.size ?? 0);
    const edge = head?.edge ?? null;
    const known = this.kept.leaves;
    if (kept > 0 && (size < kept || !edge || !edge.equals(known[kept - 1]!)))
      this.kept = { leaves: [], memo: new Map() };
    // a memo outgrowing the tree holds ranges of old proofs: start it again
    if (this.kept.memo.size > 4 * size + 1024) this.kept = { leaves: this.kept.leaves, memo: new Map() };
    const { leaves, memo } = this.kept;
    if (size > leaves.length) {
      const from = leaves.length;
      const rows = (await this.db.query(
        `SELECT idx, leaf_hash FROM log_leaves WHERE idx >= $1 AND idx < $2 ORDER BY idx`,
        [from, size],
      )) as { idx: string; leaf_hash: Buffer }[];
      // another request may have extended the cache meanwhile: append only the next index
      for (const r of rows) if (Number(r.idx) === leaves.length) leaves.push(new Uint8Array(r.leaf_hash));
    }
    // a copy: a request extending the cache meanwhile changes no size this caller reads
    return { leaves: leaves.slice(0, size), memo };
  }

  /** The checkpoint of the tree, signed once and kept (replicas signing the same size agree). */
  private async checkpointOf({ leaves, memo }: Tree): Promise<SignedCheckpoint> {
    const signer = await this.keys.active();
    const size = leaves.length;
    const [kept] = (await this.db.query(`SELECT root, note, key_id FROM log_checkpoints WHERE size = $1`, [
      size,
    ])) as {
      root: Buffer;
      note: string;
      key_id: string;
    }[];
    const rootBytes = rootOf(sha256, leaves, 0, size, memo);
    const root = toBase64(rootBytes);
    if (kept && kept.key_id === signer.keyId && toBase64(new Uint8Array(kept.root)) === root)
      return { origin: this.keys.origin, size, root, note: kept.note, keyId: kept.key_id };
    const checkpoint = { origin: this.keys.origin, size, root };
    const note = signCheckpoint(checkpoint, signer);
    await this.db.query(
      `INSERT INTO log_checkpoints (size, root, note, key_id) VALUES ($1, $2, $3, $4) ON CONFLICT (size) DO NOTHING`,
      [size, Buffer.from(rootBytes), note, signer.keyId],
    );
    return { ...checkpoint, note, keyId: signer.keyId };
  }

  async checkpoint(): Promise<SignedCheckpoint> {
    return this.checkpointOf(await this.tree());
  }

  /** Inclusion proofs of the given transitions' leaves in the current tree. */
  async proofs(
    transitionIds: readonly string[],
  ): Promise<{ checkpoint: SignedCheckpoint; byTransition: Map<string, LeafProof> }> {
    const tree = await this.tree();
    const { leaves, memo } = tree;
    const checkpoint = await this.checkpointOf(tree);
    const byTransition = new Map<string, LeafProof>();
    if (transitionIds.length === 0) return { checkpoint, byTransition };
    const rows = (await this.db.query(
      `SELECT idx, transition_id FROM log_leaves WHERE transition_id = ANY($1::bigint[]) AND idx < $2`,
      [transitionIds, leaves.length],
    )) as { idx: string; transition_id: string }[];
    for (const r of rows) {
      const leafIndex = Number(r.idx);
      byTransition.set(String(r.transition_id), {
        leafIndex,
        treeSize: leaves.length,
        inclusionProof: inclusionProof(sha256, leaves, leafIndex, leaves.length, memo).map(toBase64),
      });
    }
    return { checkpoint, byTransition };
  }

  /** PROOF(from, to): that the tree at `from` is a prefix of the tree at `to` (the current one by default). */
  async consistency(
    from: number,
    to?: number,
  ): Promise<{ fromSize: number; toSize: number; proof: string[] }> {
    const { leaves, memo } = await this.tree();
    const toSize = to ?? leaves.length;
    if (toSize > leaves.length)
      throw new BadRequestException(`to: the log has ${leaves.length} leaves, not ${toSize}`);
    if (from > toSize) throw new BadRequestException(`from: ${from} is larger than to (${toSize})`);
    return {
      fromSize: from,
      toSize,
      proof: consistencyProof(sha256, leaves, from, toSize, memo).map(toBase64),
    };
  }

  /** One breaker's export: its log entries with proofs, its certificates, the checkpoint and the keys. */
  async bundle(breakerId: string, since?: number): Promise<Bundle> {
    const [breaker] = (await this.db.query(`SELECT id FROM breakers WHERE id = $1`, [
      breakerId,
    ])) as unknown[];
    if (!breaker) throw new NotFoundException(`breaker ${breakerId} not found`);
    const tree = await this.tree();
    const leaves = tree.leaves;
    const size = leaves.length;
    if (since !== undefined && since > size)
      throw new BadRequestException(`since: the log has ${size} leaves, not ${since}`);
    const mine = (await this.db.query(
      `SELECT idx, leaf, transition_id FROM log_leaves WHERE breaker_id = $1 AND idx < $2 ORDER BY idx`,
      [breakerId, size],
    )) as { idx: string; leaf: Buffer; transition_id: string }[];
    const certs = (await this.db.query(
      `SELECT c.envelope, l.idx FROM quorum_certificates c JOIN log_leaves l ON l.transition_id = c.transition_id
       WHERE c.breaker_id = $1 AND l.idx < $2 ORDER BY l.idx`,
      [breakerId, size],
    )) as { envelope: DsseEnvelope; idx: string }[];
    const earlier = (await this.db.query(
      `SELECT size FROM log_checkpoints WHERE size < $1 ORDER BY size DESC LIMIT $2`,
      [size, CONSISTENCY_FROM_RECENT],
    )) as { size: string }[];
    const signer = await this.keys.active();
    const checkpoint = await this.checkpointOf(tree); // kept, so later bundles prove consistency with it
    const bundle = assembleBundle(
      {
        breakerId,
        origin: this.keys.origin,
        leafHashes: leaves,
        entries: mine.map((r) => ({
          leafIndex: Number(r.idx),
          entry: JSON.parse(r.leaf.toString('utf8')) as LogLeafStatement,
        })),
        receipts: certs.map((c) => ({ leafIndex: Number(c.idx), envelope: c.envelope })),
        keys: await this.keys.all(),
        instanceKeys: await this.instanceKeysOf(certs.map((c) => c.envelope)),
        consistencyFrom: [
          ...new Set([...(since !== undefined ? [since] : []), ...earlier.map((e) => Number(e.size))]),
        ],
      },
      signer,
      sha256,
    );
    return {
      ...bundle,
      checkpoint: {
        origin: checkpoint.origin,
        size: checkpoint.size,
        root: checkpoint.root,
        note: checkpoint.note,
      },
    };
  }

  /** The registered keys of the instances whose signed verdicts the certificates carry. */
  private async instanceKeysOf(certificates: readonly DsseEnvelope[]): Promise<InstanceKeyInfo[]> {
    const keyIds = new Set<string>();
    for (const env of certificates) {
      const c = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as {
        verdicts: { signed: boolean; keyId?: string }[];
      };
      for (const v of c.verdicts) if (v.signed && v.keyId) keyIds.add(v.keyId);
    }
    if (keyIds.size === 0) return [];
    const rows = (await this.db.query(
      `SELECT key_id, group_name, instance_id, public_key FROM instance_keys WHERE key_id = ANY($1::text[]) ORDER BY key_id`,
      [[...keyIds]],
    )) as { key_id: string; group_name: string; instance_id: string; public_key: Buffer }[];
    return rows.map((r) => ({
      instanceId: r.instance_id,
      group: r.group_name,
      keyId: r.key_id,
      publicKey: r.public_key.toString('base64'),
    }));
  }
}
