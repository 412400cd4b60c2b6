// A pool's body is stored as JSON (pools.config) and outlives the code that wrote it: it carries
// its schema version `v` and is read through upgradePoolConfig, which lays it over the current
// defaults, so a pool stored before a field existed reads with that field's default. Versions:
//   1: bodies stored before `v` existed (validated and complete as of then).
//   2: `v` written on every save.
//   3: probe.intervalMs and ramp.growth, probeGrowth, headroom, latencyInflation (a version-2 body
//      reads them from the defaults); ramp.dwellMs is the floor of a sample-based dwell.
//   4: ramp.shedsCleanly (a version-3 body reads it from the defaults: false).
import { defaultPoolBody, mergePool, type PoolBody, type PoolInput } from './PoolDefaults.js';

export const POOL_CONFIG_VERSION = 4;

/** A pool body as stored: the body plus its schema version. */
export type StoredPoolBody = PoolBody & { v: number };

/**
 * A stored pool body in the current shape: every section and field present (the defaults where
 * the stored body lacks one), without the version (not part of the API's pool). Idempotent.
 * Throws on what is not an object, and on a version newer than this code knows.
 */
export function upgradePoolConfig(raw: unknown): PoolBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`pool config: expected a JSON object, got ${raw === null ? 'null' : typeof raw}`);
  const { v = 1, ...body } = raw as { v?: unknown } & Record<string, unknown>;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new Error(`pool config: version must be a positive integer, got ${JSON.stringify(v)}`);
  if (v > POOL_CONFIG_VERSION)
    throw new Error(
      `pool config: stored with schema version ${v}, newer than this controller understands (${POOL_CONFIG_VERSION}); run the newer controller`,
    );
  // stored bodies were validated when written: only what they lack comes from the defaults
  return mergePool(body as PoolInput, defaultPoolBody());
}

/** The body as it is written: stamped with the current version. */
export function stampPoolConfig(body: PoolBody): StoredPoolBody {
  return { ...body, v: POOL_CONFIG_VERSION };
}
