// Pools: the operator's PUT (validated by core validatePoolInput), reads, and the resolution every
// lease, heartbeat and ramp tick needs: dependency -> its pool, or the default pool.
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolResolver } from '@recloser/control';
import {
  poolForGroup,
  poolIdProblem,
  upgradePoolConfig,
  validatePoolInput,
  type PoolConfig,
} from '@recloser/core';
import { DataSource, MoreThan } from 'typeorm';
import { decodeCursor, type Page, PAGE_DEFAULT, pageOf, type PageQuery } from '../common/paging.js';
import { PoolDependencyEntity } from './pool-dependency.entity.js';
import { PoolEntity } from './pool.entity.js';

/** A pool as the admin API shows it. */
export interface PoolView extends PoolConfig {
  createdAt: string;
  updatedAt: string;
}

// each replica re-reads a dependency's pool at most this often: a PUT reaches every replica within it
const RESOLVE_CACHE_MS = 1000;
const UNIQUE_VIOLATION = '23505';

@Injectable()
export class PoolsService implements PoolResolver {
  private readonly cache = new Map<string, { pool: PoolConfig | null; at: number }>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async put(id: string, body: unknown): Promise<PoolView> {
    const idProblem = poolIdProblem(id);
    const result = validatePoolInput(body);
    const errors = [...(idProblem ? [idProblem] : []), ...(result.ok ? [] : result.errors)];
    if (errors.length > 0 || !result.ok) throw new BadRequestException(errors.join('; '));
    const config = result.value;
    try {
      await this.db.transaction(async (tx) => {
        await tx.getRepository(PoolEntity).upsert({ id, config }, ['id']);
        await tx.getRepository(PoolDependencyEntity).delete({ poolId: id });
        if (config.dependencies.length > 0) {
          await tx
            .getRepository(PoolDependencyEntity)
            .insert(config.dependencies.map((dependency) => ({ dependency, poolId: id })));
        }
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new ConflictException(`dependencies: ${await this.describeClaims(id, config.dependencies)}`);
      }
      throw err;
    }
    this.cache.clear();
    return this.get(id);
  }

  async get(id: string): Promise<PoolView> {
    const row = await this.db.getRepository(PoolEntity).findOneBy({ id });
    if (!row) throw new NotFoundException(`pool ${id} does not exist`);
    return toView(row);
  }

  /** One page of configured pools by id (a keyset on the primary key). */
  async page(page: PageQuery): Promise<Page<PoolView>> {
    const limit = page.limit ?? PAGE_DEFAULT;
    const after = decodeCursor<readonly [string]>(page.cursor, ['string']);
    const rows = await this.db.getRepository(PoolEntity).find({
      where: after ? { id: MoreThan(after[0]) } : {},
      order: { id: 'ASC' },
      take: limit + 1,
    });
    const { rows: pageRows, next } = pageOf(rows, limit, (r) => [r.id]);
    return { rows: pageRows.map(toView), next };
  }

  async list(): Promise<PoolView[]> {
    const rows = await this.db.getRepository(PoolEntity).find({ order: { id: 'ASC' } });
    return rows.map(toView);
  }

  /** The pool `group`'s breaker of `dependency` draws on (core poolForGroup over the configured pool). */
  async resolve(dependency: string, group?: string): Promise<PoolConfig> {
    return poolForGroup(await this.configured(dependency), dependency, group);
  }

  /** The pool configured for `dependency`, or null (each replica re-reads it at most every second). */
  private async configured(dependency: string): Promise<PoolConfig | null> {
    const cached = this.cache.get(dependency);
    if (cached && Date.now() - cached.at < RESOLVE_CACHE_MS) return cached.pool;
    const rows: { id: string; config: unknown }[] = await this.db.query(
      `SELECT p.id, p.config FROM pool_dependencies d JOIN pools p ON p.id = d.pool_id WHERE d.dependency = $1`,
      [dependency],
    );
    // raw SQL bypasses the entity's column transformer: upgrade as it would
    const pool = rows[0] ? { ...upgradePoolConfig(rows[0].config), id: rows[0].id } : null;
    this.cache.set(dependency, { pool, at: Date.now() });
    return pool;
  }

  private async describeClaims(id: string, dependencies: string[]): Promise<string> {
    const taken = await this.db
      .getRepository(PoolDependencyEntity)
      .createQueryBuilder('d')
      .where('d.dependency IN (:...dependencies) AND d.pool_id <> :id', { dependencies, id })
      .getMany();
    const list = taken.map((t) => `"${t.dependency}" already draws on pool "${t.poolId}"`).join(', ');
    return list || 'a dependency was claimed by another pool at the same time; retry';
  }
}

function toView(row: PoolEntity): PoolView {
  return {
    id: row.id,
    ...row.config, // read through core upgradePoolConfig (PoolEntity's column transformer)
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
