import type { Evidence, ReportedState, TrafficClass } from '@recloser/core';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An instance's latest local verdict on one breaker (one row per breaker × instance, upserted).
 * No index on reported_at: every heartbeat rewrites it, and the update stays HOT (migration HotPresence).
 */
@Entity({ name: 'verdicts' })
@Index('IDX_verdicts_locally_open', ['breakerId'], { where: `state IN ('open', 'half_open')` })
export class VerdictEntity {
  @PrimaryColumn({ name: 'breaker_id', type: 'uuid' })
  breakerId: string;

  @PrimaryColumn({ name: 'instance_id', type: 'text' })
  instanceId: string;

  @Column({ type: 'text' })
  region: string;

  @Column({ type: 'text' })
  state: ReportedState;

  /** the controller's own first-seen time of the current locally-open run (never the instance's clock) */
  @Column({ name: 'open_since', type: 'timestamptz', nullable: true })
  openSince: Date | null;

  /** what the instance claimed, kept for operators only */
  @Column({ name: 'reported_since', type: 'text', nullable: true })
  reportedSince: string | null;

  @Column({ type: 'jsonb' })
  evidence: Evidence;

  @Column({ type: 'jsonb', nullable: true })
  demand: Record<TrafficClass, number> | null;

  /** requests/s the instance moved to each other region over its last window (issue 14), or null */
  @Column({ type: 'jsonb', nullable: true })
  routed: Record<string, number> | null;

  @Column({ name: 'reported_at', type: 'timestamptz' })
  reportedAt: Date;
}
