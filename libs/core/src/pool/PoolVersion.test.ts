import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_EXAMPLE_POOL } from '../../../../test/support/pool-example.js';
import { DEFAULT_FALLBACK, defaultPoolBody, mergePool, type PoolBody } from './PoolDefaults.js';
import { POOL_CONFIG_VERSION, stampPoolConfig, upgradePoolConfig } from './PoolVersion.js';
import { validatePoolInput } from './PoolValidation.js';

const body = (): PoolBody => {
  const r = validatePoolInput(API_EXAMPLE_POOL);
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.value;
};

describe('upgradePoolConfig', () => {
  it('reads a pool stored before `fallback` existed with the default fallback', () => {
    const { fallback: _dropped, ...stored } = body();
    const read = upgradePoolConfig(stored);
    expect(read.fallback).toEqual(DEFAULT_FALLBACK);
    expect(read).toEqual({ ...body(), fallback: DEFAULT_FALLBACK });
  });

  it('fills a field missing inside a section from the defaults, keeping the stored ones', () => {
    const b = body();
    const { maxTtftP95Ms: _dropped, ...gates } = b.ramp.gates;
    const read = upgradePoolConfig({ ...b, ramp: { ...b.ramp, gates } });
    expect(read.ramp.gates).toEqual({
      ...b.ramp.gates,
      maxTtftP95Ms: defaultPoolBody().ramp.gates.maxTtftP95Ms,
    });
    expect(read.capacity).toEqual(b.capacity);
    expect(read.ramp.classOrder).toEqual(b.ramp.classOrder);
  });

  it('reads a version-3 body (before ramp.shedsCleanly existed) as not declaring it', () => {
    const b = body();
    const { shedsCleanly: _dropped, ...ramp } = b.ramp;
    const read = upgradePoolConfig({ ...b, ramp, v: 3 });
    expect(read.ramp.shedsCleanly).toBe(false);
    expect(read).toEqual({ ...b, ramp: { ...b.ramp, shedsCleanly: false } });
  });

  it('reads a stamped (current) body as the body, without its version', () => {
    const stored = stampPoolConfig(body());
    expect(stored.v).toBe(POOL_CONFIG_VERSION);
    expect(upgradePoolConfig(stored)).toEqual(body());
    expect(upgradePoolConfig(JSON.parse(JSON.stringify(stored)))).toEqual(body());
  });

  it('refuses a version newer than it knows, and what is not an object', () => {
    expect(() => upgradePoolConfig({ ...body(), v: POOL_CONFIG_VERSION + 1 })).toThrow(
      /schema version 5, newer than this controller understands \(4\)/,
    );
    expect(() => upgradePoolConfig({ ...body(), v: 1.5 })).toThrow(/positive integer/);
    expect(() => upgradePoolConfig('pool')).toThrow(/expected a JSON object/);
    expect(() => upgradePoolConfig(null)).toThrow(/expected a JSON object/);
  });

  // stored bodies are validated bodies, possibly missing whole sections or fields of a section
  const storedArb = fc
    .record({
      dropSection: fc.subarray(['probe', 'ramp', 'fallback'] as const),
      dropGate: fc.option(fc.constantFrom('minSuccessRate', 'max429Rate', 'maxQueueAgeMs'), {
        nil: undefined,
      }),
      concurrency: fc.integer({ min: 1, max: 50 }),
      steps: fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 6 }),
      versioned: fc.boolean(),
    })
    .map(({ dropSection, dropGate, concurrency, steps, versioned }) => {
      const b = mergePool(
        { probe: { concurrency }, ramp: { steps: [...steps].sort((x, y) => x - y).map((s) => s / 100) } },
        body(),
      ) as unknown as Record<string, unknown>;
      const ramp = b.ramp as { gates: Record<string, unknown> };
      if (dropGate) delete ramp.gates[dropGate];
      for (const s of dropSection) delete b[s];
      if (versioned) b.v = POOL_CONFIG_VERSION;
      return JSON.parse(JSON.stringify(b)) as unknown;
    });

  it('property: upgrade is idempotent, and a current body reads back unchanged', () => {
    fc.assert(
      fc.property(storedArb, (raw) => {
        const once = upgradePoolConfig(raw);
        expect(upgradePoolConfig(once)).toEqual(once);
        expect(upgradePoolConfig(stampPoolConfig(once))).toEqual(once);
        expect(validatePoolInput(once).ok).toBe(true);
      }),
    );
  });
});
