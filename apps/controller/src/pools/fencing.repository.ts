// The durable high-water mark of each pool's fencing numbers. Redis hands numbers out of a block
// reserved here, so after Redis loses its data the next block starts above anything ever granted:
// fencing never goes backwards. One UPDATE per block keeps Postgres off the grant path.
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

export const FENCING_BLOCK_SIZE = 1000;

/** A reserved range of fencing numbers, both ends included. */
export interface FencingBlock {
  first: number;
  last: number;
}

/** What the probe lease store needs from the database. */
export interface FencingBlocks {
  /** Reserve the next block of a pool's fencing numbers (creates the pool's row on first use). */
  reserve(poolId: string): Promise<FencingBlock>;
  /** Whether this pool ever reserved a block, i.e. tokens may have been granted and still be held. */
  mayHaveLeases(poolId: string): Promise<boolean>;
  /** Pools that ever reserved a block: the ones that may hold leases. */
  pools(): Promise<string[]>;
}

@Injectable()
export class FencingRepository implements FencingBlocks {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  async reserve(poolId: string): Promise<FencingBlock> {
    const rows: { reserved_through: string }[] = await this.db.query(
      `INSERT INTO probe_fencing (pool_id, reserved_through) VALUES ($1, $2)
       ON CONFLICT (pool_id) DO UPDATE
         SET reserved_through = probe_fencing.reserved_through + $2, updated_at = now()
       RETURNING reserved_through`,
      [poolId, FENCING_BLOCK_SIZE],
    );
    const last = Number(rows[0]!.reserved_through);
    return { first: last - FENCING_BLOCK_SIZE + 1, last };
  }

  async mayHaveLeases(poolId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM probe_fencing WHERE pool_id = $1`, [poolId]);
    return rows.length > 0;
  }

  async pools(): Promise<string[]> {
    const rows: { pool_id: string }[] = await this.db.query(
      `SELECT pool_id FROM probe_fencing ORDER BY pool_id`,
    );
    return rows.map((r) => r.pool_id);
  }
}
