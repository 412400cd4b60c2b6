import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { type PoolBody, stampPoolConfig, upgradePoolConfig } from '@recloser/core';

/**
 * A provider capacity pool as stored: the validated body (defaults filled in) as jsonb, stamped
 * with its schema version; read back over the current defaults (core upgradePoolConfig).
 */
@Entity({ name: 'pools' })
export class PoolEntity {
  @PrimaryColumn({ name: 'id', type: 'text' })
  id: string;

  @Column({
    name: 'config',
    type: 'jsonb',
    transformer: {
      from: (raw: unknown) => (raw == null ? raw : upgradePoolConfig(raw)),
      to: (body: PoolBody | null | undefined) => (body == null ? body : stampPoolConfig(body)),
    },
  })
  config: PoolBody;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
