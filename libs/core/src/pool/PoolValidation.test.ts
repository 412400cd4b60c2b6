import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_EXAMPLE_POOL } from '../../../../test/support/pool-example.js';
import { DEFAULT_POOL, defaultPoolBody, mergePool } from './PoolDefaults.js';
import { validatePoolInput } from './PoolValidation.js';

function errorsOf(body: unknown): string[] {
  const r = validatePoolInput(body);
  return r.ok ? [] : r.errors;
}

describe('DEFAULT_POOL', () => {
  it('gives a dependency its own pool with the docs/api.md values', () => {
    const p = DEFAULT_POOL('llm-provider', 'llm-provider');
    expect(p.id).toBe('llm-provider');
    expect(p.dependencies).toEqual(['llm-provider']);
    // a found ramp: it starts at 1 % and admits at most 100 %, growing ×3 (the levels between are found)
    expect(p.ramp).toMatchObject({ steps: [0.03, 1.0], dwellMs: 2000, growth: 4, headroom: 0.02 });
    expect(p.probe).toMatchObject({
      concurrency: 1,
      ratePerSec: 1,
      leaseTtlMs: 5000,
      cooldownMs: 5000,
      intervalMs: 1000,
    });
    expect(p.capacity).toEqual({ standard: { ratePerSec: 100, concurrency: 50 } });
    expect(p.fallback).toEqual({ ratePerSec: 0.2, ownersPerRegion: 2 });
  });

  it('hands out fresh copies, so mutating one pool leaves the defaults alone', () => {
    const a = DEFAULT_POOL('a', 'a');
    a.ramp.steps.push(2);
    a.capacity.standard!.ratePerSec = 1;
    expect(DEFAULT_POOL('b', 'b').ramp.steps).toHaveLength(2);
    expect(DEFAULT_POOL('b', 'b').capacity.standard!.ratePerSec).toBe(100);
  });

  it('is itself valid', () => {
    const { id: _id, ...body } = DEFAULT_POOL('x', 'x');
    expect(validatePoolInput(body)).toEqual({ ok: true, value: body });
  });
});

describe('mergePool', () => {
  it('merges sections field by field and keeps the rest of the defaults', () => {
    const m = mergePool({ probe: { concurrency: 3 }, ramp: { gates: { max429Rate: 0.1 } } });
    expect(m.probe.concurrency).toBe(3);
    expect(m.probe.cooldownMs).toBe(5000);
    expect(m.ramp.gates.max429Rate).toBe(0.1);
    expect(m.ramp.gates.minSuccessRate).toBe(0.95);
    expect(m.ramp.steps).toEqual(defaultPoolBody().ramp.steps);
  });

  it('replaces the capacity map and orders classes as listed when no classOrder is given', () => {
    const m = mergePool({
      capacity: { small: { ratePerSec: 5, concurrency: 2 }, big: { ratePerSec: 1, concurrency: 1 } },
    });
    expect(Object.keys(m.capacity)).toEqual(['small', 'big']);
    expect(m.ramp.classOrder).toEqual(['small', 'big']);
  });
});

describe('validatePoolInput', () => {
  it('accepts the docs/api.md example and fills the fields it leaves out', () => {
    const r = validatePoolInput(API_EXAMPLE_POOL);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.probe.probesToPass).toBe(2);
    expect(r.value.ramp.minSample).toBe(10);
    expect(r.value.capacity.long_context).toEqual({ ratePerSec: 20, concurrency: 10 });
  });

  it('accepts an empty body as the defaults', () => {
    expect(validatePoolInput({})).toEqual({ ok: true, value: defaultPoolBody() });
  });

  it('rejects a body that is not an object', () => {
    expect(errorsOf(null)).toEqual(['body must be a JSON object']);
    expect(errorsOf([1])).toEqual(['body must be a JSON object']);
    expect(errorsOf('pool')).toEqual(['body must be a JSON object']);
  });

  it.each([[[0.1, 0.05, 1]], [[0, 0.5, 1]], [[0.5, 0.5, 1]], [[0.5, 1.5]], [[0.1, 'x']]])(
    'rejects steps %j as not ascending in (0, 1]',
    (steps) => {
      expect(errorsOf({ ramp: { steps } })).toEqual(['ramp.steps must be ascending, each in (0, 1]']);
    },
  );

  it('rejects empty steps', () => {
    expect(errorsOf({ ramp: { steps: [] } })[0]).toMatch(/^ramp\.steps must be a non-empty array/);
  });

  it('reports every error at once with its field path', () => {
    const errs = errorsOf({
      probe: { concurrency: 0, ratePerSec: -1, leaseTtlMs: 1.5, cooldownMs: 'soon' },
      ramp: { dwellMs: -1, gates: { minSuccessRate: 1.2, max429Rate: -0.1, maxLatencyP95Ms: 'x' } },
      fallback: { ownersPerRegion: 0, regionWeights: { 'eu-west': -1 } },
      dependencies: ['a', ''],
    });
    expect(errs).toEqual([
      'dependencies[1] must be a non-empty string',
      'probe.concurrency must be an integer >= 1',
      'probe.ratePerSec must be an integer >= 1',
      'probe.leaseTtlMs must be an integer >= 1',
      'probe.cooldownMs must be a finite number',
      'ramp.dwellMs must be an integer >= 0',
      'ramp.gates.minSuccessRate must be in [0, 1]',
      'ramp.gates.maxLatencyP95Ms must be a finite number',
      'ramp.gates.max429Rate must be in [0, 1]',
      'fallback.ownersPerRegion must be an integer >= 1',
      'fallback.regionWeights.eu-west must be in [0, Infinity)',
    ]);
  });

  it('returns structured field errors beside the messages', () => {
    const r = validatePoolInput({ probe: { concurrency: 0 } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.fieldErrors).toEqual([{ field: 'probe.concurrency', reason: 'must be an integer >= 1' }]);
  });

  it('rejects unknown keys at the top level and inside sections', () => {
    expect(errorsOf({ id: 'x', color: 'red', probe: { concurency: 2 } })).toEqual([
      'id is not a known field (known: dependencies, groups, probe, capacity, ramp, fallback, failureDomain)',
      'color is not a known field (known: dependencies, groups, probe, capacity, ramp, fallback, failureDomain)',
      'probe.concurency is not a known field (known: concurrency, ratePerSec, leaseTtlMs, cooldownMs, intervalMs, probesToPass, leases)',
    ]);
  });

  it('rejects wrong section types', () => {
    expect(errorsOf({ probe: 3, ramp: [], capacity: 'lots', dependencies: 'a' })).toEqual([
      'dependencies must be an array of strings',
      'probe must be an object',
      'capacity must be an object of traffic class -> { ratePerSec, concurrency }',
      'ramp must be an object',
    ]);
  });

  it('rejects a classOrder naming a class absent from capacity, and one that leaves a class out', () => {
    expect(errorsOf({ ramp: { classOrder: ['standard', 'long_context'] } })).toEqual([
      'ramp.classOrder names classes missing from capacity: long_context',
    ]);
    expect(
      errorsOf({ ...API_EXAMPLE_POOL, ramp: { ...API_EXAMPLE_POOL.ramp, classOrder: ['standard'] } }),
    ).toEqual(['ramp.classOrder must list every capacity class (missing: long_context)']);
    expect(errorsOf({ ramp: { classOrder: ['standard', 'standard'] } })).toEqual([
      'ramp.classOrder must not repeat an entry',
    ]);
  });

  it('rejects incomplete or reserved capacity classes', () => {
    expect(
      errorsOf({ capacity: { standard: { ratePerSec: 10 }, probe: { ratePerSec: 1, concurrency: 1 } } }),
    ).toEqual([
      'capacity.standard.concurrency must be a finite number',
      'capacity.probe "probe" is reserved for probe calls',
    ]);
    expect(errorsOf({ capacity: {} })).toContain('capacity must name at least one traffic class');
  });

  it('property: every valid body round-trips, and any single out-of-range fraction is named', () => {
    const fraction = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        fraction,
        fraction,
        fc.integer({ min: 1, max: 100 }),
        (minSuccessRate, max429Rate, conc) => {
          const r = validatePoolInput({
            probe: { concurrency: conc },
            ramp: { gates: { minSuccessRate, max429Rate } },
          });
          expect(r.ok).toBe(true);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: 1.000001, max: 1e6, noNaN: true }),
          fc.double({ min: -1e6, max: -0.000001, noNaN: true }),
        ),
        (bad) => {
          expect(errorsOf({ ramp: { gates: { minSuccessRate: bad } } })).toEqual([
            'ramp.gates.minSuccessRate must be in [0, 1]',
          ]);
        },
      ),
    );
  });
});

describe('pool bound to groups', () => {
  it('accepts a list of group names, refuses an empty one and a malformed name, naming the field', () => {
    const ok = validatePoolInput({ dependencies: ['llm'], groups: ['orders-consumer', 'billing'] });
    expect(ok.ok && ok.value.groups).toEqual(['orders-consumer', 'billing']);
    const unbound = validatePoolInput({ dependencies: ['llm'] });
    expect(unbound.ok && 'groups' in unbound.value).toBe(false);
    const empty = validatePoolInput({ dependencies: ['llm'], groups: [] });
    expect(!empty.ok && empty.errors.join()).toMatch(/^groups must name at least one group/);
    const bad = validatePoolInput({ dependencies: ['llm'], groups: ['ok', ' '] });
    expect(!bad.ok && bad.errors.join()).toContain('groups');
  });
});

describe('pool failure domain', () => {
  it('accepts each declared domain, leaves it out when absent, refuses anything else naming the field', () => {
    for (const d of ['provider', 'region', 'endpoint', 'model', 'credential']) {
      const ok = validatePoolInput({ dependencies: ['llm'], failureDomain: d });
      expect(ok.ok && ok.value.failureDomain).toBe(d);
    }
    const absent = validatePoolInput({ dependencies: ['llm'] });
    expect(absent.ok && 'failureDomain' in absent.value).toBe(false);
    const bad = validatePoolInput({ dependencies: ['llm'], failureDomain: 'zone' });
    expect(!bad.ok && bad.errors).toEqual([
      'failureDomain must be one of: provider, region, endpoint, model, credential',
    ]);
  });
});

describe('a pool that declares its provider sheds cleanly (ramp.shedsCleanly)', () => {
  it('is false unless given, accepts true, refuses anything but a boolean naming the field', () => {
    const absent = validatePoolInput({ dependencies: ['llm'] });
    expect(absent.ok && absent.value.ramp.shedsCleanly).toBe(false);
    const declared = validatePoolInput({ dependencies: ['llm'], ramp: { shedsCleanly: true } });
    expect(declared.ok && declared.value.ramp.shedsCleanly).toBe(true);
    for (const v of ['true', 1, null]) {
      const bad = validatePoolInput({ dependencies: ['llm'], ramp: { shedsCleanly: v } });
      expect(!bad.ok && bad.errors).toEqual(['ramp.shedsCleanly must be true or false']);
    }
  });
});
