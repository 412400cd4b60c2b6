// Issue 9: a fuzz suite over every endpoint. fast-check mutates each endpoint's valid request (body,
// headers, path) into hostile ones and asserts: never a 5xx, a refused request adds no row, and
// afterwards the controller is ready and every breaker's transition chain verifies.
// CI runs FUZZ_RUNS (default 2,000) requests; `npm run fuzz` runs 20,000.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetKey } from '../support/fleet-key.js';
import { heartbeat, verdict } from '../support/fleet.js';
import { API_EXAMPLE_POOL } from '../support/pool-example.js';
import { bootTestApp, randomSuffix, TEST_ADMIN_TOKEN, type TestApp } from '../support/test-app.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

interface Endpoint {
  name: string;
  method: Method;
  /** path segments; `{…}` entries are parameters the fuzzer may replace */
  path: string[];
  query?: string;
  auth: 'fleet' | 'admin' | 'none';
  body?: Json;
}

interface FuzzRequest {
  method: Method;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  label: string;
}

// strings no edge should pass through to a store
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'w\udfff',
  '\udc00\ud800',
  '\u202eevil',
  'orders\u2066x',
  '\u0085',
  '\u007f',
  '__proto__',
  'constructor',
  'prototype',
  'x'.repeat(129),
  'x'.repeat(20_000),
  '2026-02-30',
  '2026-02-30T10:00:00Z',
  '../../etc/passwd',
  '%00',
  'NaN',
  'Infinity',
  '-1',
  '😀',
  'e\u0301',
  "'; DROP TABLE breakers; --",
];
const HOSTILE_NUMBERS = [
  -1,
  -0,
  0,
  0.5,
  1.5,
  1e9 + 1,
  86_400_001,
  1e300,
  -1e300,
  Number.MAX_VALUE,
  5e-324,
  2 ** 53 + 1,
];

const utf16String = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  maxLength: 12,
});
const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  utf16String,
  fc.string({ maxLength: 12 }),
);
const hostileNumber = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const nestedArrays = (depth: number): Json => {
  let v: Json = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom<Json>([], {}, [[]], [{}], ['a'], [null], { '\u0000': 1 }, { 'k\ud800': 1 }, { ' ': 1 }),
  // deeper bodies come as raw payloads: fast-check's report of a value this deep would overflow
  fc.integer({ min: 15, max: 200 }).map(nestedArrays),
  fc.integer({ min: 999, max: 3000 }).map((n) => new Array<Json>(n).fill(1)),
  fc.constant(JSON.parse('{"__proto__":{"polluted":1}}') as Json),
  fc.constant(JSON.parse('{"constructor":{"prototype":{"polluted":1}}}') as Json),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

/** Every [path, value] inside a JSON value (objects and arrays included), root first. */
function paths(
  v: Json,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

type Mutation =
  | { op: 'replace'; at: number; value: Json }
  | { op: 'delete'; at: number }
  | { op: 'addKey'; at: number; key: string; value: Json }
  | { op: 'wrap'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('addKey' as const),
    at: fc.nat(),
    key: fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'pad')),
    value: hostileValue,
  }),
  fc.record({ op: fc.constant('wrap' as const), at: fc.nat() }),
);

function mutate(body: Json, m: Mutation): Json {
  const root = structuredClone(body);
  const all = paths(root);
  const path = all[m.at % all.length]!;
  const parentOf = (p: (string | number)[]) => {
    let v: Json = root;
    for (const k of p.slice(0, -1)) v = (v as Record<string, Json>)[k as string]!;
    return v as Record<string | number, Json>;
  };
  const get = (p: (string | number)[]): Json => (p.length === 0 ? root : parentOf(p)[p.at(-1)!]!);
  const set = (p: (string | number)[], value: Json): Json => {
    if (p.length === 0) return value;
    parentOf(p)[p.at(-1)!] = value;
    return root;
  };
  switch (m.op) {
    case 'replace':
      return set(path, m.value);
    case 'wrap': // an array where an object or value belongs
      return set(path, [get(path)]);
    case 'delete': {
      if (path.length === 0) return root;
      const parent = parentOf(path);
      if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
      else delete parent[path.at(-1)!];
      return root;
    }
    case 'addKey': {
      const target = get(path);
      if (target === null || typeof target !== 'object' || Array.isArray(target))
        return set(path, { [m.key]: m.value });
      Object.defineProperty(target, m.key, {
        value: m.value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      return root;
    }
  }
}

const HOSTILE_SEGMENTS = [
  'ab%00c',
  '%00',
  '%ED%A0%80',
  '%ff',
  '%E2%80%AE',
  '..',
  '%2e%2e',
  'a%2Fb',
  '%',
  '%zz',
  '__proto__',
  'constructor',
  '%20',
  'x'.repeat(129),
  'x'.repeat(384),
  'x'.repeat(2000),
  '00000000-0000-0000-0000-000000000000',
  'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
];
const HOSTILE_QUERIES = [
  'group=%00',
  'group=a&group=b',
  'group=__proto__',
  'group=%ED%A0%80',
  '__proto__[x]=1',
  'limit=1e9',
  'limit=-1',
  'limit=NaN',
  'breakerId=%00',
  'breakerId=not-a-uuid',
  'a%00=1',
  '%ff=%ff',
  `group=${'x'.repeat(5000)}`,
];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/json, text/plain',
];

describe('fuzz: hostile bodies, headers and paths on every endpoint', () => {
  let t: TestApp;
  let key: string;
  let breakerId: string;
  const group = `g-fuzz-${randomSuffix()}`;

  let counter: pg.Client; // one connection: t.db.query connects per query, too slow to run per request
  const countRows = async () => {
    const {
      rows: [row],
    } = await counter.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM breakers) AS breakers, (SELECT count(*) FROM instances) AS instances,
              (SELECT count(*) FROM fleet_keys) AS fleet_keys, (SELECT count(*) FROM fleet_groups) AS fleet_groups,
              (SELECT count(*) FROM pools) AS pools, (SELECT count(*) FROM pool_dependencies) AS pool_dependencies,
              (SELECT count(*) FROM verdicts) AS verdicts`,
    );
    return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
  };

  beforeAll(async () => {
    t = await bootTestApp();
    counter = new pg.Client({ connectionString: t.db.url });
    await counter.connect();
    key = (await createFleetKey(t, [group])).key;
    const res = await heartbeat(t, key, {
      instanceId: 'worker-1',
      group,
      breakers: [verdict('llm-provider', 'open')],
    });
    breakerId = res.body.breakers[0].breakerId as string;
  });
  afterAll(async () => {
    await counter?.end();
    await t?.close();
  });

  it(
    `${RUNS} hostile requests: no 5xx, no row from a refused request, still ready, every chain verifies`,
    async () => {
      const endpoints = (): Endpoint[] => [
        {
          name: 'heartbeat',
          method: 'POST',
          path: ['v1', 'heartbeats'],
          auth: 'fleet',
          body: {
            instanceId: 'worker-2',
            group,
            region: 'eu-west',
            breakers: [
              verdict('llm-provider', 'open', {
                since: '2026-12-02T10:00:03Z',
                demand: { standard: 12.5, long_context: 1 },
              }),
            ] as Json[],
          },
        },
        {
          name: 'lease',
          method: 'POST',
          path: ['v1', 'probes', 'lease'],
          auth: 'fleet',
          body: { instanceId: 'worker-2', group, dependency: 'llm-provider', class: 'standard' },
        },
        {
          name: 'probe result',
          method: 'POST',
          path: ['v1', 'probes', '{AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA}', 'result'],
          auth: 'fleet',
          body: { outcome: 'success', latencyMs: 180, ttftMs: 90 },
        },
        { name: 'breakers', method: 'GET', path: ['v1', 'breakers'], query: `group=${group}`, auth: 'fleet' },
        { name: 'overview', method: 'GET', path: ['v1', 'admin', 'overview'], auth: 'admin' },
        {
          name: 'breaker',
          method: 'GET',
          path: ['v1', 'admin', 'breakers', `{${breakerId}}`],
          auth: 'admin',
        },
        {
          name: 'action',
          method: 'POST',
          path: ['v1', 'admin', 'breakers', `{${breakerId}}`, 'actions'],
          auth: 'admin',
          body: { action: 'pause_ramp', reason: 'fuzz: déjà vu 🔥' },
        },
        {
          name: 'put pool',
          method: 'PUT',
          path: ['v1', 'admin', 'pools', '{p-fuzz}'],
          auth: 'admin',
          body: { ...structuredClone(API_EXAMPLE_POOL), dependencies: ['fuzz-dep'] } as Json,
        },
        { name: 'pools', method: 'GET', path: ['v1', 'admin', 'pools'], auth: 'admin' },
        { name: 'pool', method: 'GET', path: ['v1', 'admin', 'pools', '{p-fuzz}'], auth: 'admin' },
        {
          name: 'quorum',
          method: 'PUT',
          path: ['v1', 'admin', 'groups', `{${group}}`, 'quorum'],
          auth: 'admin',
          body: { fraction: 0.5, minOpen: 2 },
        },
        {
          name: 'create key',
          method: 'POST',
          path: ['v1', 'admin', 'fleet-keys'],
          auth: 'admin',
          body: { name: 'orders fleet', groups: [group] },
        },
        {
          name: 'delete key',
          method: 'DELETE',
          path: ['v1', 'admin', 'fleet-keys', '{00000000-0000-4000-8000-000000000000}'],
          auth: 'admin',
        },
        {
          name: 'transitions',
          method: 'GET',
          path: ['v1', 'admin', 'transitions'],
          query: `breakerId=${breakerId}&limit=10`,
          auth: 'admin',
        },
        { name: 'ready', method: 'GET', path: ['health', 'ready'], auth: 'none' },
      ];
      const count = endpoints().length;

      const tweak = fc.oneof(
        { weight: 1, arbitrary: fc.constant({ kind: 'valid' as const }) },
        {
          weight: 6,
          arbitrary: fc.record({
            kind: fc.constant('body' as const),
            ms: fc.array(mutation, { minLength: 1, maxLength: 3 }),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            kind: fc.constant('raw' as const),
            raw: fc.oneof(
              fc.nat().map((n) => ({ truncateAt: n })),
              fc.constantFrom(
                '',
                'null',
                '"x"',
                '[1,2]',
                '{"__proto__":{"polluted":1}}',
                '{"constructor":{"prototype":{"polluted":1}}}',
                '{"a":1,"a":2}',
                '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
                '{"a":"\\ud800"}',
                '{"a":"\\u0000"}',
                '\u0000',
                '\ufeff{}',
                '{"a":1e999}',
                '{"a":-0}',
              ),
              fc.integer({ min: 2000, max: 50_000 }).map((n) => ({ deep: n })),
            ),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('contentType' as const),
            type: fc.constantFrom(...CONTENT_TYPES),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant('auth' as const),
            value: fc.oneof(
              fc.constantFrom(
                '',
                'Bearer',
                'Bearer ',
                'Bearer a b',
                'Basic Zm9vOmJhcg==',
                'Bearer rck_nope',
                `Bearer ${'x'.repeat(5000)}`,
                'swap',
              ),
              fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
            ),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            kind: fc.constant('path' as const),
            segment: fc.oneof(
              fc.constantFrom(...HOSTILE_SEGMENTS),
              utf16String.map((s) => encodeURIComponent(/[\ud800-\udfff]/.test(s) ? 'x' : s)),
            ),
            query: fc.option(fc.constantFrom(...HOSTILE_QUERIES)),
            method: fc.option(fc.constantFrom<Method>('PATCH', 'DELETE', 'GET', 'POST')),
          }),
        },
      );

      const build = (e: Endpoint, tw: FuzzTweak): FuzzRequest => {
        const headers: Record<string, string> = {};
        const token = e.auth === 'fleet' ? key : e.auth === 'admin' ? TEST_ADMIN_TOKEN : undefined;
        if (token) headers.authorization = `Bearer ${token}`;
        let segments = e.path.map((s) => (s.startsWith('{') ? s.slice(1, -1) : s));
        let query = e.query;
        let method = e.method;
        let payload = e.body === undefined ? undefined : JSON.stringify(e.body);
        let label: string = tw.kind;
        switch (tw.kind) {
          case 'valid':
            break;
          case 'body': {
            let body: Json = e.body ?? {};
            for (const m of tw.ms) body = mutate(body, m);
            payload = JSON.stringify(body);
            label = `body ${tw.ms.map((m) => m.op).join('+')}`;
            break;
          }
          case 'raw':
            if (typeof tw.raw === 'string') payload = tw.raw;
            else if ('deep' in tw.raw) payload = '['.repeat(tw.raw.deep) + ']'.repeat(tw.raw.deep);
            else
              payload = (payload ?? '{}').slice(0, tw.raw.truncateAt % Math.max(1, (payload ?? '{}').length));
            break;
          case 'contentType':
            headers['content-type'] = tw.type;
            break;
          case 'auth':
            if (tw.value === 'swap')
              headers.authorization = `Bearer ${e.auth === 'admin' ? key : TEST_ADMIN_TOKEN}`;
            else if (tw.value === '') delete headers.authorization;
            else headers.authorization = tw.value;
            break;
          case 'path': {
            const params = segments.map((_, i) => i).filter((i) => e.path[i]!.startsWith('{'));
            const i = params.length > 0 ? params[0]! : segments.length;
            segments = [...segments.slice(0, i), tw.segment, ...segments.slice(i + 1)];
            if (tw.query !== null) query = tw.query;
            if (tw.method !== null) method = tw.method;
            break;
          }
        }
        if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
        const url = `/${segments.join('/')}${query ? `?${query}` : ''}`;
        return {
          method,
          url,
          headers,
          ...(payload !== undefined ? { payload } : {}),
          label: `${e.name}: ${label}`,
        };
      };
      type FuzzTweak = typeof tweak extends fc.Arbitrary<infer T> ? T : never;

      const fastify = t.app.getHttpAdapter().getInstance();
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      let lastEnd = 0;
      let last: Record<string, number> | null = null; // the counts after the previous request
      const timing = new Map<string, number>();
      let sent = 0;
      let notSent = 0;
      const started = Date.now();

      await fc.assert(
        fc.asyncProperty(fc.nat({ max: count - 1 }), tweak, async (which, tw) => {
          timing.set('(between)', (timing.get('(between)') ?? 0) + (Date.now() - (lastEnd || Date.now())));
          const req = build(endpoints()[which]!, tw);
          const before = last ?? (await countRows());
          let res;
          const t0 = Date.now();
          try {
            res = await fastify.inject({
              method: req.method,
              url: req.url,
              headers: req.headers,
              ...(req.payload !== undefined ? { payload: req.payload } : {}),
            });
          } catch {
            notSent++; // the HTTP client refused to build it (an invalid header value): no request
            return;
          }
          sent++;
          const k = req.label.split(':')[0]!;
          timing.set(k, (timing.get(k) ?? 0) + (Date.now() - t0));
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const what = `${req.label} ${req.method} ${req.url.slice(0, 120)} ${(req.payload ?? '').slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
          if (res.statusCode >= 500) failures.push(what);
          expect(res.statusCode, what).toBeLessThan(500);
          const c0 = Date.now();
          const after = await countRows();
          timing.set('(count rows)', (timing.get('(count rows)') ?? 0) + (Date.now() - c0));
          last = after;
          lastEnd = Date.now();
          if (res.statusCode >= 400) {
            for (const [table, n] of Object.entries(after))
              expect(n, `${table} grew after a refused request: ${what}`).toBeLessThanOrEqual(before[table]!);
            // every refusal is the documented error shape
            if (res.headers['content-type']?.toString().includes('json')) {
              const body = JSON.parse(res.body) as Record<string, unknown>;
              expect(body, what).toMatchObject({
                statusCode: res.statusCode,
                error: expect.any(String),
                message: expect.any(String),
              });
            }
          }
        }),
        { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true },
      );

      const seconds = (Date.now() - started) / 1000;
      const distribution = [...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ');
      console.log(
        `fuzz: ${sent} requests (${notSent} not buildable) in ${seconds.toFixed(1)} s; statuses ${distribution}`,
      );
      if (process.env.FUZZ_TIMING) console.log([...timing.entries()].sort(([, a], [, b]) => b - a));
      expect(failures).toEqual([]);

      expect((await t.request('GET', '/health/ready')).status).toBe(200);
      const breakers = await t.db.query<{ id: string }>('SELECT id FROM breakers');
      for (const { id } of breakers) {
        const log = await t.admin('GET', `/v1/admin/transitions?breakerId=${id}&limit=1000`);
        expect(log.status).toBe(200);
        expect(log.body.chain, `breaker ${id}`).toMatchObject({ ok: true });
      }
    },
    Math.max(60_000, RUNS * 60),
  ); // 20,000 runs (npm run fuzz) need longer than the default
});
