import { poolForGroup, type PoolConfig } from '@recloser/core';
import type { PoolResolver } from '../ports.js';

/** Pools in memory: configured ones by dependency, else the dependency's own pool with the defaults. */
export class MemoryPools implements PoolResolver {
  private readonly byDependency = new Map<string, PoolConfig>();

  constructor(pools: readonly PoolConfig[] = []) {
    for (const p of pools) this.put(p);
  }

  /** PUT /v1/admin/pools/{id}: the pool and the dependencies that draw on it */
  put(pool: PoolConfig): void {
    for (const [dep, p] of [...this.byDependency]) if (p.id === pool.id) this.byDependency.delete(dep);
    for (const dep of pool.dependencies) this.byDependency.set(dep, pool);
  }

  async resolve(dependency: string, group?: string): Promise<PoolConfig> {
    return poolForGroup(this.byDependency.get(dependency) ?? null, dependency, group);
  }
}
