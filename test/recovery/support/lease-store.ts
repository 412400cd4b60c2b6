// A probe lease store on the real services for one test file: a fresh database for the fencing
// counters and the shared Redis under a key prefix of its own (never flushed: others use it too).
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { FencingRepository } from '../../../apps/controller/src/pools/fencing.repository.js';
import { ProbeLeaseStore } from '../../../apps/controller/src/probes/probe-lease.store.js';
import { createMigratedDatabase, testPrefix, type MigratedDatabase } from './services.js';

export interface LeaseStoreFixture {
  store: ProbeLeaseStore;
  redis: Redis;
  prefix: string;
}

/**
 * Registers beforeAll/afterAll hooks: the store is made before the file's tests (read the fields inside
 * them, not at load time), and its Redis keys and database are gone after.
 */
export function useLeaseStore(label: string): LeaseStoreFixture {
  const fixture = {} as LeaseStoreFixture;
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await createMigratedDatabase(label);
    fixture.redis = new Redis('redis://127.0.0.1:6379');
    fixture.prefix = testPrefix(label);
    fixture.store = new ProbeLeaseStore(fixture.redis, new FencingRepository(db.dataSource), fixture.prefix);
  });
  afterAll(async () => {
    const keys = await fixture.redis.keys(`${fixture.prefix}*`);
    if (keys.length) await fixture.redis.del(...keys);
    fixture.redis.disconnect();
    await db.drop();
  });
  return fixture;
}
