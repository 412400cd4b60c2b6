// Validation of a PUT /v1/admin/pools/{id} body. A partial body merges over the defaults; every
// problem is reported at once, each naming its field path and the reason, so the controller can
// answer 400 with all of them instead of one at a time (or a 500).
import { DAY_MS, identifierProblem, MAX_COUNT, trafficClassProblem } from '../input/InputRules.js';
import { FAILURE_DOMAINS } from '../domain/FailureDomain.js';
import { PROBE_LEASE_POLICIES } from './PoolConfig.js';
import { defaultPoolBody, type PoolBody } from './PoolDefaults.js';

export interface PoolFieldError {
  /** dotted path of the offending field, e.g. `ramp.gates.minSuccessRate` */
  field: string;
  reason: string;
}

export type PoolValidationResult =
  { ok: true; value: PoolBody } | { ok: false; errors: string[]; fieldErrors: PoolFieldError[] };

type Obj = Record<string, unknown>;

const TOP_KEYS = [
  'dependencies',
  'groups',
  'probe',
  'capacity',
  'ramp',
  'fallback',
  'failureDomain',
] as const;
const PROBE_KEYS = [
  'concurrency',
  'ratePerSec',
  'leaseTtlMs',
  'cooldownMs',
  'intervalMs',
  'probesToPass',
  'leases',
] as const;
const CLASS_KEYS = ['ratePerSec', 'concurrency'] as const;
const RAMP_KEYS = [
  'steps',
  'dwellMs',
  'minSample',
  'growth',
  'probeGrowth',
  'headroom',
  'latencyInflation',
  'shedsCleanly',
  'classOrder',
  'gates',
] as const;
const GATE_KEYS = [
  'minSuccessRate',
  'maxLatencyP95Ms',
  'maxTtftP95Ms',
  'maxQueueAgeMs',
  'max429Rate',
] as const;
const FALLBACK_KEYS = ['ratePerSec', 'ownersPerRegion', 'regionWeights'] as const;
/** `probe` names probe calls; a capacity class by that name would blur the probe budget */
const RESERVED_CLASS = 'probe';
// bounds so no number or list can overflow what is derived from it (a Retry-After of 1e296 s)
const MAX_DEPENDENCIES = 1000;
const MAX_GROUPS = 1000;
const MAX_CLASSES = 32;
const MAX_REGIONS = 256;
const MAX_STEPS = 100;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Collector {
  readonly list: PoolFieldError[] = [];
  add(field: string, reason: string): void {
    this.list.push({ field, reason });
  }

  /** Reports keys of `o` outside `known`; returns whether `o` is an object at all. */
  object(field: string, o: unknown, known: readonly string[]): o is Obj {
    if (!isObj(o)) {
      this.add(field, 'must be an object');
      return false;
    }
    for (const k of Object.keys(o)) {
      if (!known.includes(k))
        this.add(field ? `${field}.${k}` : k, `is not a known field (known: ${known.join(', ')})`);
    }
    return true;
  }

  isNumber(field: string, v: unknown): v is number {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.add(field, 'must be a finite number');
      return false;
    }
    return true;
  }

  /** integer in [min, max] */
  integer(field: string, v: unknown, min: number, max: number): void {
    if (!this.isNumber(field, v)) return;
    if (!Number.isInteger(v) || v < min) this.add(field, `must be an integer >= ${min}`);
    else if (v > max) this.add(field, `must be an integer <= ${max}`);
  }

  /** true or false */
  boolean(field: string, v: unknown): void {
    if (typeof v !== 'boolean') this.add(field, 'must be true or false');
  }

  /** one of `allowed` */
  oneOf(field: string, v: unknown, allowed: readonly string[]): void {
    if (typeof v !== 'string' || !allowed.includes(v))
      this.add(field, `must be one of: ${allowed.join(', ')}`);
  }

  /** number in [min, max] (max may be Infinity) */
  range(field: string, v: unknown, min: number, max: number, minExclusive = false): void {
    if (!this.isNumber(field, v)) return;
    const low = minExclusive ? v <= min : v < min;
    if (low || v > max) {
      const lo = minExclusive ? `(${min}` : `[${min}`;
      const hi = max === Infinity ? 'Infinity)' : `${max}]`;
      this.add(field, `must be in ${lo}, ${hi}`);
    }
  }

  /** An array of at most `maxItems` distinct strings, each passing `rule` (core's InputRules). */
  stringList(
    field: string,
    v: unknown,
    rule: (s: unknown) => string | null,
    maxItems: number,
  ): v is string[] {
    if (!Array.isArray(v)) {
      this.add(field, 'must be an array of strings');
      return false;
    }
    if (v.length > maxItems) {
      this.add(field, `must hold at most ${maxItems} entries`);
      return false;
    }
    let ok = true;
    v.forEach((s, i) => {
      const problem = typeof s !== 'string' || s.trim() === '' ? 'must be a non-empty string' : rule(s);
      if (problem) {
        this.add(`${field}[${i}]`, problem);
        ok = false;
      }
    });
    if (ok && new Set(v).size !== v.length) {
      this.add(field, 'must not repeat an entry');
      ok = false;
    }
    return ok;
  }
}

/** Overlays the body's sections on the defaults without judging them (judging comes after). */
function overlay(body: Obj): Obj {
  const d = defaultPoolBody() as unknown as Obj;
  const section = (key: string): unknown => {
    const given = body[key];
    if (given === undefined) return d[key];
    return isObj(given) && isObj(d[key]) ? { ...d[key], ...given } : given;
  };
  const ramp = section('ramp');
  if (isObj(ramp) && isObj(body.ramp)) {
    const gates = body.ramp.gates;
    ramp.gates = isObj(gates)
      ? { ...((d.ramp as Obj).gates as Obj), ...gates }
      : (gates ?? (d.ramp as Obj).gates);
    // a body that names its classes without an order admits them in the order it lists them
    if (body.ramp.classOrder === undefined && isObj(body.capacity))
      ramp.classOrder = Object.keys(body.capacity);
  } else if (isObj(ramp) && isObj(body.capacity)) {
    ramp.classOrder = Object.keys(body.capacity);
  }
  return {
    ...body,
    dependencies: body.dependencies ?? d.dependencies,
    probe: section('probe'),
    capacity: body.capacity ?? d.capacity,
    ramp,
    fallback: section('fallback'),
  };
}

/**
 * Checks a PUT pool body (partial bodies merge over the defaults) and returns either the full,
 * valid pool body or every problem, each as `<field path> <reason>`.
 */
export function validatePoolInput(body: unknown): PoolValidationResult {
  const c = new Collector();
  if (!isObj(body)) {
    c.add('body', 'must be a JSON object');
    return fail(c);
  }
  const m = overlay(body);
  c.object('', m, TOP_KEYS);

  c.stringList('dependencies', m.dependencies, identifierProblem, MAX_DEPENDENCIES);
  if (m.groups !== undefined && c.stringList('groups', m.groups, identifierProblem, MAX_GROUPS)) {
    if ((m.groups as unknown[]).length === 0)
      c.add('groups', 'must name at least one group (leave it out to let every group draw on the pool)');
  }

  if (c.object('probe', m.probe, PROBE_KEYS)) {
    const p = m.probe;
    c.integer('probe.concurrency', p.concurrency, 1, MAX_COUNT);
    // whole grants per second: the grant rule counts grants in a 1 s window against it
    c.integer('probe.ratePerSec', p.ratePerSec, 1, MAX_COUNT);
    c.integer('probe.leaseTtlMs', p.leaseTtlMs, 1, DAY_MS);
    c.integer('probe.cooldownMs', p.cooldownMs, 0, DAY_MS);
    c.integer('probe.intervalMs', p.intervalMs, 0, DAY_MS);
    c.integer('probe.probesToPass', p.probesToPass, 1, MAX_COUNT);
    c.oneOf('probe.leases', p.leases, PROBE_LEASE_POLICIES);
  }

  let classes: string[] | null = null;
  if (isObj(m.capacity)) {
    classes = Object.keys(m.capacity);
    if (classes.length === 0) c.add('capacity', 'must name at least one traffic class');
    if (classes.length > MAX_CLASSES) c.add('capacity', `must name at most ${MAX_CLASSES} traffic classes`);
    for (const [name, cap] of Object.entries(m.capacity).slice(0, MAX_CLASSES)) {
      const nameProblem = trafficClassProblem(name);
      if (nameProblem) {
        c.add('capacity', `class name ${JSON.stringify(name.slice(0, 64))} ${nameProblem}`);
        continue;
      }
      const f = `capacity.${name}`;
      if (name === RESERVED_CLASS) c.add(f, `"${RESERVED_CLASS}" is reserved for probe calls`);
      if (!c.object(f, cap, CLASS_KEYS)) continue;
      c.range(`${f}.ratePerSec`, cap.ratePerSec, 0, MAX_COUNT, true);
      c.integer(`${f}.concurrency`, cap.concurrency, 1, MAX_COUNT);
    }
  } else {
    c.add('capacity', 'must be an object of traffic class -> { ratePerSec, concurrency }');
  }

  if (c.object('ramp', m.ramp, RAMP_KEYS)) {
    const r = m.ramp;
    checkSteps(c, r.steps);
    c.integer('ramp.dwellMs', r.dwellMs, 0, DAY_MS);
    c.integer('ramp.minSample', r.minSample, 1, MAX_COUNT);
    c.range('ramp.growth', r.growth, 1, 10, true);
    c.range('ramp.probeGrowth', r.probeGrowth, 1, 10, true);
    if (typeof r.growth === 'number' && typeof r.probeGrowth === 'number' && r.probeGrowth > r.growth)
      c.add('ramp.probeGrowth', 'must be at most ramp.growth');
    c.range('ramp.headroom', r.headroom, 0, 0.5);
    c.range('ramp.latencyInflation', r.latencyInflation, 1, 100, true);
    c.boolean('ramp.shedsCleanly', r.shedsCleanly);
    const order = r.classOrder;
    if (c.stringList('ramp.classOrder', order, trafficClassProblem, MAX_CLASSES) && classes) {
      const known = classes;
      if (order.length === 0) c.add('ramp.classOrder', 'must list at least one class');
      const unknown = order.filter((k) => !known.includes(k));
      if (unknown.length > 0)
        c.add('ramp.classOrder', `names classes missing from capacity: ${unknown.join(', ')}`);
      const missing = known.filter((k) => !order.includes(k));
      if (missing.length > 0)
        c.add('ramp.classOrder', `must list every capacity class (missing: ${missing.join(', ')})`);
    }
    if (c.object('ramp.gates', r.gates, GATE_KEYS)) {
      const g = r.gates;
      c.range('ramp.gates.minSuccessRate', g.minSuccessRate, 0, 1);
      c.integer('ramp.gates.maxLatencyP95Ms', g.maxLatencyP95Ms, 0, DAY_MS);
      c.integer('ramp.gates.maxTtftP95Ms', g.maxTtftP95Ms, 0, DAY_MS);
      c.integer('ramp.gates.maxQueueAgeMs', g.maxQueueAgeMs, 0, DAY_MS);
      c.range('ramp.gates.max429Rate', g.max429Rate, 0, 1);
    }
  }

  if (c.object('fallback', m.fallback, FALLBACK_KEYS)) {
    const f = m.fallback;
    c.range('fallback.ratePerSec', f.ratePerSec, 0, MAX_COUNT);
    c.integer('fallback.ownersPerRegion', f.ownersPerRegion, 1, MAX_COUNT);
    if (f.regionWeights !== undefined) {
      if (isObj(f.regionWeights)) {
        const weights = Object.entries(f.regionWeights);
        if (weights.length > MAX_REGIONS)
          c.add('fallback.regionWeights', `must name at most ${MAX_REGIONS} regions`);
        for (const [region, w] of weights.slice(0, MAX_REGIONS)) {
          const regionProblem = identifierProblem(region);
          if (regionProblem) {
            c.add('fallback.regionWeights', `region ${JSON.stringify(region.slice(0, 64))} ${regionProblem}`);
            continue;
          }
          const field = `fallback.regionWeights.${region}`;
          c.range(field, w, 0, Infinity);
          if (typeof w === 'number' && w > MAX_COUNT) c.add(field, `must be at most ${MAX_COUNT}`);
        }
      } else {
        c.add('fallback.regionWeights', 'must be an object of region -> weight');
      }
    }
  }

  if (m.failureDomain !== undefined) c.oneOf('failureDomain', m.failureDomain, FAILURE_DOMAINS);

  if (c.list.length > 0) return fail(c);
  return { ok: true, value: m as unknown as PoolBody };
}

function checkSteps(c: Collector, steps: unknown): void {
  const rule = 'must be ascending, each in (0, 1]';
  if (Array.isArray(steps) && steps.length > MAX_STEPS) {
    c.add('ramp.steps', `must hold at most ${MAX_STEPS} steps`);
    return;
  }
  if (!Array.isArray(steps) || steps.length === 0) {
    c.add('ramp.steps', `must be a non-empty array of fractions, ${rule.replace('must be ', '')}`);
    return;
  }
  let prev = 0;
  let bad = false;
  for (const s of steps) {
    if (typeof s !== 'number' || !Number.isFinite(s) || s <= prev || s > 1) bad = true;
    else prev = s;
  }
  if (bad) c.add('ramp.steps', rule);
}

function fail(c: Collector): PoolValidationResult {
  return { ok: false, errors: c.list.map((e) => `${e.field} ${e.reason}`), fieldErrors: c.list };
}
