import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An instance's heartbeat row: presence, whatever it reports. No index on last_seen_at (HOT updates). */
@Entity({ name: 'instances' })
export class InstanceEntity {
  @PrimaryColumn({ name: 'group_name', type: 'text' })
  group: string;

  @PrimaryColumn({ name: 'instance_id', type: 'text' })
  instanceId: string;

  @Column({ type: 'text' })
  region: string;

  @Column({ name: 'first_seen_at', type: 'timestamptz' })
  firstSeenAt: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;
}
