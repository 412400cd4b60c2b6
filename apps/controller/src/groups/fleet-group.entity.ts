import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A group as the controller knows it: when it was first heard from, and its quorum policy (null = default). */
@Entity({ name: 'fleet_groups' })
export class FleetGroupEntity {
  @PrimaryColumn({ name: 'group_name', type: 'text' })
  group: string;

  @Column({ name: 'quorum_fraction', type: 'double precision', nullable: true })
  quorumFraction: number | null;

  @Column({ name: 'quorum_min_open', type: 'integer', nullable: true })
  quorumMinOpen: number | null;

  @Column({ name: 'first_seen_at', type: 'timestamptz' })
  firstSeenAt: Date;

  /** the last live instance the archive job saw (presence rows are pruned long before archival) */
  @Column({ name: 'last_live_at', type: 'timestamptz', nullable: true })
  lastLiveAt: Date | null;

  /** set by the archive job; the overview skips the group until it is heard from again */
  @Column({ name: 'archived_at', type: 'timestamptz', nullable: true })
  archivedAt: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
