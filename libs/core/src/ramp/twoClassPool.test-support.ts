// Test support (excluded from the build): the two-class pool the ramp tests share.
import type { PoolConfig } from '../pool/PoolConfig.js';
import { DEFAULT_POOL } from '../pool/PoolDefaults.js';

/** A pool with a wide `standard` class and a narrow `long_context` class admitted after it. */
export function twoClassPool(): PoolConfig {
  const p = DEFAULT_POOL('llm', 'llm');
  p.capacity = {
    standard: { ratePerSec: 500, concurrency: 200 },
    long_context: { ratePerSec: 20, concurrency: 10 },
  };
  p.ramp.classOrder = ['standard', 'long_context'];
  return p;
}
