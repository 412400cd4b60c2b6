// Instance identity: keys registered under a fleet key, and the signed verdicts heartbeats carry.
// A signed verdict is checked before the heartbeat is recorded (registered key of this instance and
// group, signature over PAE, the statement is the verdict sent beside it, a sequence number above
// every one seen for the key, signed in the epoch of a breaker the instance follows or within one
// epoch of grace of it: core signedBreaker) and kept as the instance's latest signed verdict on that
// breaker, which a quorum certificate then carries. Routine heartbeats (nothing signed, nothing
// locally open) skip all of it.
import { BadRequestException, ConflictException, ForbiddenException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  canonicalize,
  type DsseEnvelope,
  fromBase64,
  type IdentityMode,
  identityDemand,
  IDENTITY_MODES,
  isLocallyOpen,
  openEnvelope,
  PAYLOAD_TYPES,
  signedBreaker,
  epochRefusal,
  followedScope,
  type GlobalState,
  keptSignedEpoch,
  statementEvidence,
  toHex,
  verdictStatement,
  type VerdictStatement,
} from '@recloser/core';
import { DataSource } from 'typeorm';
import type { FleetPrincipal } from '../auth/fleet-principal.js';
import type { HeartbeatDto } from '../heartbeats/dto/heartbeat.dto.js';
import { nodeReceiptCrypto } from './node-crypto.js';

/** a group's identity mode is re-read at most this often per replica */
const MODE_CACHE_MS = 1_000;
const MAX_CACHED = 10_000;

export interface InstanceKeyRegistration {
  instanceId: string;
  group: string;
  /** base64 of the raw 32-byte Ed25519 public key */
  publicKey: string;
}

/** An instance key's id: "ik-" and the first 16 hex digits of SHA-256 of the raw public key. */
export function instanceKeyId(publicKey: Uint8Array): string {
  return `ik-${toHex(nodeReceiptCrypto.sha256(publicKey)).slice(0, 16)}`;
}

@Injectable()
export class VerdictIdentityService {
  private readonly modes = new Map<string, { mode: IdentityMode; at: number }>();
  private readonly keys = new Map<string, { instanceId: string; group: string; publicKey: Uint8Array }>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async register(
    principal: FleetPrincipal,
    body: InstanceKeyRegistration,
  ): Promise<{ keyId: string; created: boolean }> {
    let raw: Uint8Array;
    try {
      raw = fromBase64(body.publicKey);
    } catch {
      throw new BadRequestException('publicKey must be base64 of a raw 32-byte Ed25519 public key');
    }
    if (raw.length !== 32)
      throw new BadRequestException('publicKey must be base64 of a raw 32-byte Ed25519 public key');
    const keyId = instanceKeyId(raw);
    const inserted = (await this.db.query(
      `WITH i AS (INSERT INTO instance_keys (key_id, group_name, instance_id, public_key, fleet_key_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key_id) DO NOTHING RETURNING key_id) SELECT key_id FROM i`,
      [keyId, body.group, body.instanceId, Buffer.from(raw), principal.keyId],
    )) as unknown[];
    if (inserted.length === 0) {
      const [row] = (await this.db.query(
        `SELECT group_name, instance_id FROM instance_keys WHERE key_id = $1`,
        [keyId],
      )) as {
        group_name: string;
        instance_id: string;
      }[];
      if (row && (row.group_name !== body.group || row.instance_id !== body.instanceId))
        throw new ConflictException(`publicKey: this key is registered for another instance`);
    }
    return { keyId, created: inserted.length > 0 };
  }

  async mode(group: string): Promise<IdentityMode> {
    const now = Date.now();
    const hit = this.modes.get(group);
    if (hit && now - hit.at < MODE_CACHE_MS) return hit.mode;
    const [row] = (await this.db.query(`SELECT identity FROM fleet_groups WHERE group_name = $1`, [
      group,
    ])) as {
      identity: IdentityMode;
    }[];
    const mode = row?.identity ?? 'off';
    if (this.modes.size >= MAX_CACHED) this.modes.clear();
    this.modes.set(group, { mode, at: now });
    return mode;
  }

  async setMode(group: string, mode: IdentityMode): Promise<{ group: string; identity: IdentityMode }> {
    if (!IDENTITY_MODES.includes(mode))
      throw new BadRequestException(`mode must be one of ${IDENTITY_MODES.join(', ')}`);
    await this.db.query(
      `INSERT INTO fleet_groups (group_name, first_seen_at, identity) VALUES ($1, now(), $2)
       ON CONFLICT (group_name) DO UPDATE SET identity = EXCLUDED.identity, updated_at = now()`,
      [group, mode],
    );
    this.modes.delete(group);
    return { group, identity: mode };
  }

  /**
   * Null when the heartbeat carries nothing to check (the routine path pays one scan of its
   * verdicts); else a promise that rejects with a 4xx naming the field when a signed verdict fails.
   */
  check(dto: HeartbeatDto): Promise<void> | null {
    if (!dto.breakers.some((b) => b.envelope !== undefined || isLocallyOpen(b.state))) return null;
    return this.checkSigned(dto);
  }

  private async checkSigned(dto: HeartbeatDto): Promise<void> {
    const mode = await this.mode(dto.group);
    for (const [i, b] of dto.breakers.entries()) {
      const field = `breakers.${i}.envelope`;
      const demand = identityDemand(mode, b, b.envelope !== undefined);
      if (demand === 'refuse')
        throw new BadRequestException(
          `${field}: group "${dto.group}" requires signed verdicts (identity required)`,
        );
      if (demand === 'check') await this.accept(dto, i, b.envelope as DsseEnvelope, field);
    }
  }

  private async accept(dto: HeartbeatDto, i: number, envelope: DsseEnvelope, field: string): Promise<void> {
    const b = dto.breakers[i]!;
    const keyId = envelope.signatures[0]?.keyid ?? '';
    const key = await this.key(keyId);
    if (!key) throw new ForbiddenException(`${field}: key ${keyId} is not registered`);
    if (key.instanceId !== dto.instanceId || key.group !== dto.group)
      throw new ForbiddenException(
        `${field}: key ${keyId} is registered for another instance (a forged identity)`,
      );
    const opened = openEnvelope(
      envelope,
      PAYLOAD_TYPES.verdict,
      new Map([[keyId, key.publicKey]]),
      nodeReceiptCrypto,
    );
    if (!opened.ok) throw new BadRequestException(`${field}: ${opened.why}`);
    const v = opened.statement as VerdictStatement;
    const sent = verdictStatement(dto, b, { seq: v.seq, epoch: v.epoch });
    if (canonicalize({ ...v, evidence: statementEvidence(v.evidence) }) !== canonicalize(sent))
      throw new BadRequestException(
        `${field}: the signed statement is not the verdict sent beside it (a changed verdict)`,
      );
    if (!Number.isSafeInteger(v.seq) || v.seq < 0 || !Number.isSafeInteger(v.epoch) || v.epoch < 0)
      throw new BadRequestException(`${field}: seq and epoch must be integers ≥ 0`);
    // the breaker whose epoch it names: the one the instance follows, or the other it followed a
    // moment ago (core signedBreaker); within a grace of one epoch it is kept, else refused
    const { breaker, when, current } = signedBreaker(
      v.epoch,
      await this.followable(dto.group, b.dependency, dto.region),
    );
    if (!keptSignedEpoch(when)) throw new ConflictException(epochRefusal(field, v.epoch, current));
    // a CTE so the driver answers rows (an UPDATE alone answers [rows, count])
    const advanced = (await this.db.query(
      `WITH u AS (UPDATE instance_keys SET last_seq = $2 WHERE key_id = $1 AND last_seq < $2 RETURNING key_id) SELECT key_id FROM u`,
      [keyId, v.seq],
    )) as unknown[];
    if (advanced.length === 0)
      throw new ConflictException(
        `${field}: sequence number ${v.seq} was already used by key ${keyId} (a replayed verdict)`,
      );
    // kept for certificates, current or within grace; never over a later epoch of the same breaker
    await this.db.query(
      `INSERT INTO signed_verdicts (group_name, dependency, instance_id, key_id, seq, epoch, envelope, breaker_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (group_name, dependency, instance_id) DO UPDATE
       SET key_id = EXCLUDED.key_id, seq = EXCLUDED.seq, epoch = EXCLUDED.epoch, envelope = EXCLUDED.envelope,
           breaker_id = EXCLUDED.breaker_id, signed_at = now()
       WHERE signed_verdicts.breaker_id IS DISTINCT FROM EXCLUDED.breaker_id OR signed_verdicts.epoch <= EXCLUDED.epoch`,
      [
        dto.group,
        b.dependency,
        dto.instanceId,
        keyId,
        v.seq,
        v.epoch,
        JSON.stringify(envelope),
        breaker?.id ?? null,
      ],
    );
  }

  /**
   * The breakers an instance of `region` may have signed a verdict on `dependency` for: the one it
   * follows now first (core followedScope), then the other of its group's and its region's.
   */
  private async followable(
    group: string,
    dependency: string,
    region: string,
  ): Promise<{ id: string; epoch: number }[]> {
    const rows = (await this.db.query(
      `SELECT id, epoch, state, scope_kind FROM breakers WHERE group_name = $1 AND dependency = $2
         AND (scope_kind = 'group' OR (scope_kind = 'region' AND scope_value = $3))`,
      [group, dependency, region],
    )) as { id: string; epoch: number; state: GlobalState; scope_kind: string }[];
    const g = rows.find((r) => r.scope_kind === 'group');
    const r = rows.find((x) => x.scope_kind === 'region');
    const ordered = followedScope(g?.state ?? 'closed', r?.state ?? null) === 'region' ? [r, g] : [g, r];
    return ordered.filter((x) => x !== undefined).map((x) => ({ id: x.id, epoch: x.epoch }));
  }

  /** A registered key (keys never change once registered, so each replica keeps them). */
  private async key(
    keyId: string,
  ): Promise<{ instanceId: string; group: string; publicKey: Uint8Array } | null> {
    const hit = this.keys.get(keyId);
    if (hit) return hit;
    const [row] = (await this.db.query(
      `SELECT instance_id, group_name, public_key FROM instance_keys WHERE key_id = $1`,
      [keyId],
    )) as { instance_id: string; group_name: string; public_key: Buffer }[];
    if (!row) return null;
    const key = {
      instanceId: row.instance_id,
      group: row.group_name,
      publicKey: new Uint8Array(row.public_key),
    };
    if (this.keys.size >= MAX_CACHED) this.keys.clear();
    this.keys.set(keyId, key);
    return key;
  }
}
