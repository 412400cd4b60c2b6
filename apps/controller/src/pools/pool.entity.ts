import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { PoolBody } from '@recloser/core';

/** A provider capacity pool as stored: the validated body (defaults filled in) as jsonb. */
@Entity({ name: 'pools' })
export class PoolEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'jsonb' })
  config: PoolBody;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
