// The fast heartbeat check may be stricter than the DTO's decorators, never looser: whatever it
// accepts, the decorators accept too, and both give core the same request. Random valid bodies and
// hostile mutations of them (one field replaced by a hostile value, a field added or removed).
import { EVIDENCE_CLASSES, REPORTED_STATES } from '@recloser/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createValidationPipe } from '../../common/validation.js';
import { HeartbeatDto, toHeartbeatRequest } from './heartbeat.dto.js';
import { fastHeartbeat } from './heartbeat.fast-check.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const decorators = createValidationPipe(); // no fast checks: the decorators alone
const metadata = { type: 'body' as const, metatype: HeartbeatDto, data: '' };
const slow = (body: unknown): Promise<HeartbeatDto | null> =>
  decorators.transform(body, metadata).then(
    (dto) => dto as HeartbeatDto,
    () => null,
  );

const identifier = fc.oneof(
  fc.constantFrom('w1', 'orders-consumer', 'eu-west', 'llm/provider:v2'),
  fc.stringMatching(/^[a-z0-9][a-z0-9._:@/-]{0,20}$/),
);
const count = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.double({ min: 0, max: 50, noNaN: true }));
const verdictArb = fc
  .record({
    dependency: identifier,
    state: fc.constantFrom(...REPORTED_STATES),
    attempts: count,
    successes: count,
    byClass: fc.option(fc.dictionary(fc.constantFrom(...EVIDENCE_CLASSES), count), { nil: undefined }),
    latencyP95Ms: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
    demand: fc.option(fc.dictionary(fc.constantFrom('standard', 'batch', 'long_context'), count), {
      nil: undefined,
    }),
    routed: fc.option(fc.dictionary(fc.constantFrom('us-east', 'ap-south', 'eu-west'), count), {
      nil: undefined,
    }),
  })
  .map(({ dependency, state, attempts, successes, byClass, latencyP95Ms, demand, routed }) => {
    // mostly consistent counts (the mutations break them): successes and each class within attempts
    const evidence: Record<string, Json> = { attempts, successes: Math.min(successes, attempts) };
    if (byClass)
      evidence.byClass = Object.fromEntries(
        Object.entries(byClass).map(([k, n]) => [k, Math.min(n, attempts)]),
      );
    if (latencyP95Ms !== undefined) evidence.latencyP95Ms = latencyP95Ms;
    const v: Record<string, Json> = { dependency, state, evidence };
    if (demand) v.demand = demand;
    if (routed) v.routed = routed;
    return v;
  });
const bodyArb = fc.record({
  instanceId: identifier,
  group: identifier,
  region: identifier,
  breakers: fc.uniqueArray(verdictArb, { maxLength: 4, selector: (v) => v.dependency }),
});

const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(129),
    '2026-02-30',
    -1,
    1e300,
    1.5,
    1e9 + 1,
    86_400_001,
    null,
    true,
    [],
    {},
    [[]],
    [{}],
  ),
  fc.string({ maxLength: 8 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Every path to a value inside `v` (root excluded). */
function paths(
  v: Json,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (v !== null && typeof v === 'object') {
    for (const [k, child] of Object.entries(v)) {
      const p = [...at, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      paths(child, p, out);
    }
  }
  return out;
}

function mutate(body: Json, pick: number, value: Json, how: 'replace' | 'delete' | 'add'): Json {
  const copy = structuredClone(body);
  const all = paths(copy);
  if (all.length === 0) return copy;
  const path = all[pick % all.length]!;
  type Container = Record<string | number, Json>;
  let parent = copy as Container;
  for (const k of path.slice(0, -1)) parent = parent[k] as Container;
  const last = path.at(-1)!;
  if (how === 'replace') parent[last] = value;
  else if (Array.isArray(parent)) {
    if (how === 'delete') parent.splice(Number(last), 1);
    else parent.push(value);
  } else if (how === 'delete') delete parent[last];
  else parent[`extra${pick}`] = value;
  return copy;
}

describe('fastHeartbeat against the DTO decorators', () => {
  it('property: every body the fast check accepts, the decorators accept, with the same request for core', async () => {
    let fastAccepted = 0;
    let mutatedRefused = 0;
    await fc.assert(
      fc.asyncProperty(
        bodyArb,
        fc.nat(),
        hostile,
        fc.constantFrom('none', 'replace', 'delete', 'add'),
        async (body, pick, value, how) => {
          const candidate = how === 'none' ? body : mutate(body, pick, value, how);
          const fast = fastHeartbeat(structuredClone(candidate));
          const decorated = await slow(structuredClone(candidate));
          if (fast === null) {
            if (decorated === null) mutatedRefused += 1;
            return;
          }
          fastAccepted += 1;
          expect(decorated, JSON.stringify(candidate)).not.toBeNull();
          expect(toHeartbeatRequest(fast)).toEqual(toHeartbeatRequest(decorated!));
        },
      ),
      { numRuns: 3000, seed: 20261203 },
    );
    // both sides of the property were exercised
    expect(fastAccepted).toBeGreaterThan(500);
    expect(mutatedRefused).toBeGreaterThan(500);
  });

  it('accepts a typical heartbeat and leaves an odd one (a `since`, a bad count) to the decorators', () => {
    const verdict = {
      dependency: 'llm',
      state: 'closed',
      evidence: {
        attempts: 20,
        successes: 20,
        byClass: { overload: 0 },
        latencyP95Ms: 80,
        ttftP95Ms: null,
        queueAgeMs: 0,
      },
      demand: { standard: 2 },
    };
    const body = { instanceId: 'w1', group: 'g', region: 'eu-west', breakers: [verdict] };
    expect(fastHeartbeat(body)).toBe(body);
    expect(fastHeartbeat({ ...body, breakers: [{ ...verdict, since: '2026-12-03T00:00:00Z' }] })).toBeNull();
    expect(
      fastHeartbeat({ ...body, breakers: [{ ...verdict, evidence: { attempts: 1, successes: 2 } }] }),
    ).toBeNull();
    expect(fastHeartbeat({ ...body, instanceId: 'w\u0000' })).toBeNull();
  });
});
