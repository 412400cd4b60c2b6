import { Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * One state change of one breaker. Rows of a breaker form a hash chain (seq 1, 2, …):
 * hash = sha256(prevHash + canonical JSON of the row), so an edited or deleted row shows.
 */
@Entity({ name: 'transitions' })
@Unique('UQ_transitions_breaker_seq', ['breakerId', 'seq'])
@Index('IDX_transitions_at', ['at'])
export class TransitionEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'breaker_id', type: 'uuid' })
  breakerId: string;

  @Column({ type: 'integer' })
  seq: number;

  @Column({ name: 'from_state', type: 'text' })
  from: string;

  @Column({ name: 'to_state', type: 'text' })
  to: string;

  @Column({ type: 'integer' })
  epoch: number;

  /** the ramp step the breaker left (null outside a ramp) */
  @Column({ name: 'from_step', type: 'integer', nullable: true })
  fromStep: number | null;

  /** the ramp step the breaker entered (null outside a ramp) */
  @Column({ type: 'integer', nullable: true })
  step: number | null;

  @Column({ type: 'text' })
  actor: string;

  @Column({ type: 'text' })
  reason: string;

  @Column({ type: 'jsonb' })
  figures: Record<string, unknown>;

  @Column({ name: 'formed_by', type: 'text', array: true })
  formedBy: string[];

  @Column({ type: 'timestamptz' })
  at: Date;

  @Column({ name: 'prev_hash', type: 'char', length: 64 })
  prevHash: string;

  @Column({ type: 'char', length: 64 })
  hash: string;
}
