import type { GlobalBreakerState, GlobalState, QuorumFiguresWire } from '@recloser/core';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';

/** One global breaker per (group, dependency). `globalState` is core's GlobalBreakerState verbatim. */
@Entity({ name: 'breakers' })
@Unique('UQ_breakers_group_dependency', ['group', 'dependency'])
export class BreakerEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'group_name', type: 'text' })
  group: string;

  @Column({ type: 'text' })
  dependency: string;

  @Column({ type: 'text', nullable: true })
  region: string | null;

  @Index('IDX_breakers_pool_id')
  @Column({ name: 'pool_id', type: 'text' })
  poolId: string;

  /** copy of globalState.state, for queries */
  @Index('IDX_breakers_state')
  @Column({ type: 'text' })
  state: GlobalState;

  /** copy of globalState.epoch */
  @Column({ type: 'integer' })
  epoch: number;

  @Column({ name: 'global_state', type: 'jsonb' })
  globalState: GlobalBreakerState;

  /** the figures of the last quorum decision that changed the state */
  @Column({ type: 'jsonb' })
  quorum: QuorumFiguresWire;

  /** the instances whose verdicts formed that decision */
  @Column({ name: 'formed_by', type: 'text', array: true })
  formedBy: string[];

  @Column({ type: 'integer' })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
