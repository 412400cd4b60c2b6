// The controller's signing key and the keys it signed with before. A configured key (file or
// environment) signs; without one, the first replica generates a key and keeps it in Postgres so
// every replica signs with the same one. Every key that ever signed stays listed (rotation: old
// signatures still verify), the active one first.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type PublicKeyInfo, type ReceiptSigner, verifierKey } from '@recloser/core';
import { DataSource } from 'typeorm';
import { ControllerConfig } from '../config/controller-config.js';
import { nodeReceiptCrypto, signerFor } from './node-crypto.js';
import { readReceiptsConfig, type ReceiptsConfig } from './receipts-config.js';

// one advisory lock key for "pick or generate the signing key" (any constant outside other locks)
const KEY_LOCK = 0x7265636b; // 'reck'

@Injectable()
export class SigningKeysService implements OnModuleInit {
  private readonly log = new Logger(SigningKeysService.name);
  private config!: ReceiptsConfig;
  private signer: Promise<ReceiptSigner> | null = null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly controllerConfig: ControllerConfig,
  ) {}

  onModuleInit(): void {
    // loadConfig already read (and checked) the receipts' variables of the controller's environment
    this.config = this.controllerConfig.receipts ?? readReceiptsConfig({});
  }

  get origin(): string {
    return this.config.origin;
  }

  /** The key that signs now (resolved once per process). */
  active(): Promise<ReceiptSigner> {
    this.signer ??= this.resolve().catch((err: unknown) => {
      this.signer = null;
      throw err;
    });
    return this.signer;
  }

  /** Every key that signed for this log, the active one first. */
  async all(): Promise<PublicKeyInfo[]> {
    const active = await this.active();
    const rows = (await this.db.query(
      `SELECT key_id, public_key FROM signing_keys ORDER BY first_used_at DESC, key_id`,
    )) as { key_id: string; public_key: Buffer }[];
    return rows
      .map((r) => ({
        keyId: r.key_id,
        vkey: verifierKey(nodeReceiptCrypto.sha256, this.origin, new Uint8Array(r.public_key)),
        status: r.key_id === active.keyId ? ('active' as const) : ('retired' as const),
      }))
      .filter((k) => k.vkey.startsWith(`${k.keyId}+`)) // a key of another origin name is not this log's
      .sort((a, b) => (a.status === b.status ? 0 : a.status === 'active' ? -1 : 1));
  }

  private async resolve(): Promise<ReceiptSigner> {
    const configured = this.config.signingKey;
    return this.db.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock($1)`, [KEY_LOCK]);
      if (configured) {
        const signer = signerFor(this.origin, configured);
        await m.query(
          `INSERT INTO signing_keys (key_id, public_key, source) VALUES ($1, $2, 'configured') ON CONFLICT (key_id) DO NOTHING`,
          [signer.keyId, Buffer.from(signer.publicKey)],
        );
        return signer;
      }
      const [kept] = (await m.query(
        `SELECT private_pem FROM signing_keys WHERE source = 'generated' ORDER BY first_used_at DESC LIMIT 1`,
      )) as { private_pem: string }[];
      if (kept) return signerFor(this.origin, createPrivateKey(kept.private_pem));
      const { privateKey } = generateKeyPairSync('ed25519');
      const signer = signerFor(this.origin, privateKey);
      await m.query(
        `INSERT INTO signing_keys (key_id, public_key, private_pem, source) VALUES ($1, $2, $3, 'generated')`,
        [
          signer.keyId,
          Buffer.from(signer.publicKey),
          privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        ],
      );
      this.log.warn(
        `no RECLOSER_SIGNING_KEY(_FILE): generated signing key ${signer.keyId} and kept it in Postgres; configure a key to hold it outside the database`,
      );
      return signer;
    });
  }
}
