// The pool settings a run may give recloser (`--pool`): validated as the controller validates a pool
// body, and laid over the pool sized to the provider without touching its capacity.
import { describe, expect, it } from 'vitest';
import { poolFor } from '../strategies/recloser.js';
import { parsePoolSettings, withPoolSettings } from './poolSettings.js';

const sized = { providerRatePerSec: 240, providerConcurrency: 48 };

describe('parsePoolSettings', () => {
  it('reads the probe and ramp sections', () => {
    expect(
      parsePoolSettings('--pool', '{"ramp":{"shedsCleanly":true,"growth":3},"probe":{"intervalMs":500}}'),
    ).toEqual({ ramp: { shedsCleanly: true, growth: 3 }, probe: { intervalMs: 500 } });
  });

  it('names the flag and every field that is wrong', () => {
    expect(() => parsePoolSettings('--pool', 'ramp')).toThrow('--pool must be a JSON object');
    expect(() => parsePoolSettings('--pool', '[]')).toThrow('--pool must be a JSON object');
    expect(() => parsePoolSettings('--pool', '{"fallback":{},"groups":[]}')).toThrow(
      '--pool: fallback, groups cannot be set',
    );
    expect(() => parsePoolSettings('--pool', '{"ramp":{"shedsCleanly":1,"headroom":0.9}}')).toThrow(
      '--pool: ramp.headroom must be in [0, 0.5]; ramp.shedsCleanly must be true or false',
    );
  });
});

describe('withPoolSettings', () => {
  it('lays the settings over the sized pool: its id, dependencies, capacity and class order kept', () => {
    const pool = poolFor(sized, 'standard');
    const set = withPoolSettings(
      pool,
      parsePoolSettings('--pool', '{"ramp":{"shedsCleanly":true,"growth":3}}'),
    );
    expect(set).toEqual({ ...pool, ramp: { ...pool.ramp, shedsCleanly: true, growth: 3 } });
    expect(withPoolSettings(pool, undefined)).toBe(pool);
  });

  it('is what poolFor gives a run that names settings', () => {
    const pool = poolFor({ ...sized, pool: { ramp: { shedsCleanly: true } } }, 'standard');
    expect(pool.ramp.shedsCleanly).toBe(true);
    expect(pool.capacity).toEqual({ standard: { ratePerSec: 240, concurrency: 48 } });
  });
});
