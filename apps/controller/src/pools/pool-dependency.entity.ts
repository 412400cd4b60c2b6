import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Which pool a dependency draws on; the primary key lets a dependency belong to one pool only. */
@Entity({ name: 'pool_dependencies' })
export class PoolDependencyEntity {
  @PrimaryColumn({ type: 'text' })
  dependency: string;

  @Index('IDX_pool_dependencies_pool_id')
  @Column({ name: 'pool_id', type: 'text' })
  poolId: string;
}
