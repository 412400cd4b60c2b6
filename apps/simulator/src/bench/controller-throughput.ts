// How fast is one controller replica on its two hot endpoints? Heartbeats (POST /v1/heartbeats) of
// a fleet of 100, 1,000 and 10,000 live instances reporting a CLOSED breaker (routine: written
// behind, answered from the replica's view), of 1,000 instances while the breaker is RAMPING
// (written through, allowance divided), and lease grants (POST /v1/probes/lease, every request a
// grant: one Lua script in Redis), at full speed and paced at 2,000 a second. Each beside a bare
// Fastify route answering JSON in this process, measured in the same run with the same client over
// loopback: a bounded number of requests at a bounded concurrency. The replica is the built dist,
// as a child process, on a database and Redis key prefix of its own.
//
// BENCH_CASES (comma-separated, from CASES) runs only those cases, e.g. `BENCH_CASES=closed-1000,ramping`
// for the RAMPING/CLOSED ratio: compare cases of one run, not across runs (the machine is shared).
// BENCH_ROUNDS (default 2) is how many interleaved runs each case keeps the best of.
// BENCH_CONTROLLER_NODE_ARGS (space-separated) are node flags for the (first) replica, e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/prof` for a CPU profile of it under the load.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { startController } from '../live/ControllerProcess.js';
import { testDatabase } from '../live/testDatabase.js';
import { formatTable } from './table.js';

const REQUESTS = 8000;
const CONCURRENCY = 32;
const WARMUP = 500;
/** live fleets the heartbeat rows are measured at */
const FLEETS = [100, 1_000, 10_000] as const;
/** the paced lease run: grants a second, for this long */
const PACED_PER_SEC = 2000;
const PACED_MS = 3000;
/** live instances asking for probe tokens (a lease lives 1 s: most paced requests are fresh grants) */
const LEASERS = 3000;
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these */
const CLOCK_TICKS_PER_SEC = 100;
/** replicas sharing one database for the aggregate run */
const REPLICAS = 3;
/** no run takes longer than this, whatever the machine */
const TIME_CAP_MS = 60_000;
/** the cases BENCH_CASES may name */
export const CASES = [
  'closed-100',
  'closed-1000',
  'closed-10000',
  'ramping',
  'lease',
  'paced',
  'replicas',
] as const;
export type BenchCase = (typeof CASES)[number];

/** The cases a BENCH_CASES value selects: all when unset or empty; an unknown name is an error. */
export function selectedCases(raw: string | undefined): ReadonlySet<BenchCase> {
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) return new Set(CASES);
  for (const name of names)
    if (!(CASES as readonly string[]).includes(name))
      throw new Error(`BENCH_CASES: unknown case "${name}" (cases: ${CASES.join(', ')})`);
  return new Set(names as BenchCase[]);
}

interface Result {
  name: string;
  requests: number;
  errors: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Postgres CPU time (all its processes on this machine) per request during the run, µs */
  pgUsPerReq?: number;
  /** CPU time of the replica(s) under test per request, µs: steadier than req/s on a shared machine */
  appUsPerReq?: number;
  /** Redis's CPU time (its processes on this machine) per request, µs */
  redisUsPerReq?: number;
}

interface Target {
  name: string;
  port: number;
  path: string;
  token?: string;
  /** the body of request i (distinct instances, so every lease is a fresh grant) */
  body(i: number): unknown;
  /** the status a success has */
  ok: number;
  /** run before its measurement */
  before?: () => Promise<void>;
  /** the port request i goes to, when several replicas share the load (sticky per instance) */
  portOf?: (i: number) => number;
}

export async function run(): Promise<void> {
  const cases = selectedCases(process.env.BENCH_CASES);
  const rounds = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 2)) || 2);
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (req) => ({
    ok: true,
    echo: (req.body as { instanceId?: string })?.instanceId ?? null,
  }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as AddressInfo).port;

  const database = testDatabase('bench');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    RECLOSER_ADMIN_TOKEN: ADMIN_TOKEN,
    // fleets registered just before their runs stay live through them; routine heartbeats
    // rewrite their rows every TTL/4 (2.5 s): at 10,000 live that is every other heartbeat
    RECLOSER_HEARTBEAT_INTERVAL_MS: '2000',
    RECLOSER_HEARTBEAT_TTL_MS: '10000',
    RECLOSER_RATE_LIMIT_WRITES_PER_MIN: '100000000',
  };
  const replicas: Awaited<ReturnType<typeof startController>>[] = [];
  const execArgv = (process.env.BENCH_CONTROLLER_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);
  const controller = await startController({ env, execArgv }).catch(async (err: unknown) => {
    await database.drop();
    await bare.close();
    throw err;
  });
  try {
    const setup = await prepare(controller.port);
    // each endpoint against a bare Fastify route that parses the same body (the framework's own cost)
    const againstBare = (name: string, path: string, body: Target['body'], ok: number): [Target, Target] => [
      { name, port: controller.port, path, token: setup.key, body, ok },
      { name: 'bare Fastify route', port: barePort, path: '/bare', body, ok: 200 },
    ];
    const targets: [Target, Target][] = [];
    for (const live of FLEETS) {
      if (!cases.has(`closed-${live}`)) continue;
      const [subject, baseline] = againstBare(
        `POST /v1/heartbeats, CLOSED, ${live.toLocaleString('en')} live`,
        '/v1/heartbeats',
        (i) => setup.heartbeatBody(live, i % live),
        200,
      );
      // the fleet's first heartbeats (new instances: written through), so the measured ones are routine
      targets.push([{ ...subject, before: () => setup.register(live) }, baseline]);
    }
    const [ramping, rampingBare] = againstBare(
      'POST /v1/heartbeats, RAMPING, 1,000 live',
      '/v1/heartbeats',
      (i) => setup.rampingBody(i % 1000),
      200,
    );
    if (cases.has('ramping')) targets.push([{ ...ramping, before: setup.registerRamping }, rampingBare]);
    const [lease, leaseBare] = againstBare(
      `POST /v1/probes/lease, ${LEASERS.toLocaleString('en')} live instances (grant or re-delivery)`,
      '/v1/probes/lease',
      (i) => setup.leaseBody(i),
      201,
    );
    // leases go to live instances only: heartbeats from all of them just before
    if (cases.has('lease')) targets.push([{ ...lease, before: setup.registerLeasers }, leaseBare]);
    const rows: string[][] = [
      [
        'endpoint',
        'requests',
        'errors',
        'req/s',
        'p50 ms',
        'p99 ms',
        'req/s vs bare',
        'p99 vs bare',
        'Postgres CPU µs/req',
        'replica CPU µs/req',
        'Redis CPU µs/req',
      ],
    ];
    for (const [subject, baseline] of targets) {
      // interleave: bare, subject, bare, subject … and keep the better of each (noise only slows)
      let b: Result | null = null;
      let s: Result | null = null;
      for (let round = 0; round < rounds; round++) {
        const br = await load(baseline, round * REQUESTS);
        await subject.before?.();
        const sr = await measured(subject, round * REQUESTS, [controller.process.pid!]);
        if (!b || br.perSec > b.perSec) b = br;
        if (!s || sr.perSec > s.perSec) s = sr;
      }
      rows.push(row(s!, b), row(b!, null));
      process.stderr.write(`  measured ${subject.name}\n`);
    }
    if (cases.has('paced')) await pacedCase();
    if (cases.has('replicas')) await replicasCase();
    console.log(
      `one controller replica (child process) vs a bare Fastify route; ${REQUESTS} requests each, ` +
        `${CONCURRENCY} concurrent, keep-alive over loopback; best of ${rounds} interleaved runs; ` +
        `then lease grants paced at ${PACED_PER_SEC}/s for ${PACED_MS / 1000} s (open loop); then ` +
        `${REPLICAS} replicas of one database sharing the 10,000-instance load (one client, sticky by instance)` +
        `; cases: ${[...cases].join(', ')}`,
    );
    console.log(formatTable(rows));

    async function pacedCase(): Promise<void> {
      await setup.registerLeasers();
      const paced = await loadPaced(
        {
          name: `POST /v1/probes/lease, paced ${PACED_PER_SEC}/s`,
          port: controller.port,
          path: '/v1/probes/lease',
          token: setup.key,
          body: (i) => setup.leaseBody(2 * REQUESTS + i),
          ok: 201,
        },
        PACED_PER_SEC,
        PACED_MS,
      );
      rows.push(row(paced, null));
    }

    async function replicasCase(): Promise<void> {
      // the same routine load on REPLICAS replicas of one database, each instance sticking to one
      const others = await Promise.all(
        Array.from({ length: REPLICAS - 1 }, () =>
          startController({ env: { ...env, RECLOSER_MIGRATE_ON_BOOT: 'false' } }),
        ),
      );
      replicas.push(...others);
      const ports = [controller.port, ...others.map((c) => c.port)];
      const live = FLEETS.at(-1)!;
      const spread: Target = {
        name: `POST /v1/heartbeats, CLOSED, ${live.toLocaleString('en')} live, ${REPLICAS} replicas`,
        port: controller.port,
        portOf: (i) => ports[(i % live) % ports.length]!,
        path: '/v1/heartbeats',
        token: setup.key,
        body: (i) => setup.heartbeatBody(live, i % live),
        ok: 200,
      };
      const { portOf: _sticky, ...alone } = spread;
      await setup.register(live);
      const one = await measured({ ...alone, name: '… the same on 1 replica' }, 0, [controller.process.pid!]);
      await setup.register(live, (i) => ports[i % ports.length]!);
      const pids = [controller, ...others].map((c) => c.process.pid!);
      const three = await measured(spread, REQUESTS, pids);
      rows.push(row(three, null), row(one, null));
    }
  } finally {
    for (const r of replicas) await r.stop();
    await controller.stop();
    await database.drop();
    await bare.close();
  }
}

function row(r: Result, bare: Result | null): string[] {
  return [
    r.name,
    String(r.requests),
    String(r.errors),
    r.perSec.toFixed(0),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    bare ? `${(r.perSec / bare.perSec).toFixed(2)}x` : '',
    bare ? `${(r.p99Ms / bare.p99Ms).toFixed(1)}x` : '',
    r.pgUsPerReq !== undefined ? r.pgUsPerReq.toFixed(0) : '',
    r.appUsPerReq !== undefined ? r.appUsPerReq.toFixed(0) : '',
    r.redisUsPerReq !== undefined ? r.redisUsPerReq.toFixed(0) : '',
  ];
}

/**
 * CPU time (user + system), in ms, of the processes whose name starts with `name` (every one on
 * this machine) or whose pid is in `pids` (Linux /proc), with the time of the children they reaped:
 * a Postgres backend whose connection closes takes its CPU time out of the sum when it exits, and
 * the postmaster's count of its reaped children puts it back, so the sum only grows.
 */
export function cpuMs(which: { name: string } | { pids: readonly number[] }): number {
  let ticks = 0;
  let dirs: string[] = [];
  try {
    dirs = 'pids' in which ? which.pids.map(String) : readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return NaN;
  }
  for (const pid of dirs) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if ('name' in which && !stat.slice(stat.indexOf('(') + 1, close).startsWith(which.name)) continue;
      const fields = stat.slice(close + 2).split(' ');
      // utime, stime, cutime, cstime (fields 14 to 17)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // the process ended meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SEC;
}

/** A load run with the CPU it cost Postgres, Redis and the replicas under test (`pids`). */
async function measured(target: Target, offset: number, pids: readonly number[] = []): Promise<Result> {
  const cpu = () => [cpuMs({ name: 'postgres' }), cpuMs({ name: 'redis-server' }), cpuMs({ pids })] as const;
  const before = cpu();
  const r = await load(target, offset);
  const after = cpu();
  const perReq = (i: number) => ((after[i]! - before[i]!) * 1000) / Math.max(1, r.requests);
  return {
    ...r,
    pgUsPerReq: perReq(0),
    redisUsPerReq: perReq(1),
    ...(pids.length > 0 ? { appUsPerReq: perReq(2) } : {}),
  };
}

async function load(target: Target, offset: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  for (let i = 0; i < WARMUP; i += CONCURRENCY) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, (_, k) => send(agent, target, 1_000_000 + offset + i + k)),
    );
  }
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < REQUESTS && performance.now() - started < TIME_CAP_MS) {
      const i = next++;
      const t0 = performance.now();
      const status = await send(agent, target, offset + i);
      latencies.push(performance.now() - t0);
      if (status !== target.ok) {
        errors++;
        if (process.env.BENCH_DEBUG) process.stderr.write(`${target.name}: ${status}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return summarize(target.name, latencies, errors, performance.now() - started);
}

/** Throughput and latency quantiles of one run. */
function summarize(name: string, latencies: number[], errors: number, elapsedMs: number): Result {
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    name,
    requests: latencies.length,
    errors,
    perSec: (latencies.length / elapsedMs) * 1000,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

/** Open loop: `perSec` requests a second, each sent on schedule whatever the earlier ones are doing. */
async function loadPaced(target: Target, perSec: number, forMs: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.floor((perSec * forMs) / 1000);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSec;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    inFlight.push(
      send(agent, target, i).then(
        (status) => {
          latencies.push(performance.now() - t0);
          if (status !== target.ok) errors++;
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return summarize(target.name, latencies, errors, performance.now() - started);
}

function send(agent: Agent, target: Target, i: number): Promise<number> {
  const payload = JSON.stringify(target.body(i));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port: target.portOf ? target.portOf(i) : target.port,
        path: target.path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
        },
      },
      (res) => {
        const failed = process.env.BENCH_DEBUG && res.statusCode !== target.ok;
        if (failed) res.on('data', (d: Buffer) => process.stderr.write(`${d.toString().slice(0, 300)}\n`));
        else res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

interface Setup {
  key: string;
  leaseBody(i: number): unknown;
  heartbeatBody(fleet: number, i: number): unknown;
  rampingBody(i: number): unknown;
  /** one heartbeat from each of the fleet's instances (instance i through port `portOf(i)`) */
  register(fleet: number, portOf?: (i: number) => number): Promise<void>;
  /** one heartbeat from each of the RAMPING breaker's 1,000 instances */
  registerRamping(): Promise<void>;
  /** one heartbeat from each instance that asks for probe tokens */
  registerLeasers(): Promise<void>;
}

const evidence = (failing: boolean) => ({
  attempts: 20,
  successes: failing ? 0 : 20,
  byClass: { overload: failing ? 20 : 0, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
  latencyP95Ms: failing ? 30000 : 80,
  ttftP95Ms: null,
  queueAgeMs: 0,
});

/**
 * A fleet key; a PROBING breaker whose pool grants without limit to any live instance (so every
 * lease request is a grant or a re-delivery, the path under test) and LEASERS live instances on it;
 * a RAMPING breaker (a quorum, a probe that passed, a dwell longer than the bench) with 1,000 live
 * instances; and a CLOSED breaker per fleet size for the routine heartbeats.
 */
async function prepare(port: number): Promise<Setup> {
  const base = `http://127.0.0.1:${port}`;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const keyRes = await fetch(`${base}/v1/admin/fleet-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({
      name: 'bench',
      groups: ['bench-probe', 'bench-ramp', ...FLEETS.map((n) => `bench-fleet-${n}`)],
    }),
  });
  const { key } = (await keyRes.json()) as { key: string };
  const fleet = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const putPool = async (id: string, body: unknown) => {
    const res = await fetch(`${base}/v1/admin/pools/${id}`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`bench pool ${id}: ${res.status} ${await res.text()}`);
  };
  /** what the setup reads of answers: a heartbeat's breaker id, a lease's token */
  interface Answer {
    breakers?: { breakerId?: string }[];
    token?: string;
  }
  const post = async (
    path: string,
    body: unknown,
    at: number = port,
  ): Promise<{ status: number; json: Answer | null }> => {
    const res = await fetch(`http://127.0.0.1:${at}${path}`, {
      method: 'POST',
      headers: fleet,
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as Answer | null };
  };
  const beat = (group: string, dependency: string, instanceId: string, state: string) =>
    post('/v1/heartbeats', {
      instanceId,
      group,
      region: 'eu-west',
      breakers: [{ dependency, state, evidence: evidence(state === 'open'), demand: { standard: 2 } }],
    });
  /** `count` requests, `CONCURRENCY` at a time; every one must succeed */
  const many = async (count: number, one: (i: number) => Promise<{ status: number; json: unknown }>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) {
          const res = await one(next++);
          if (res.status !== 200) throw new Error(`bench setup: ${res.status} ${JSON.stringify(res.json)}`);
        }
      }),
    );
  };
  const stateOf = async (group: string) =>
    (
      (await (await fetch(`${base}/v1/breakers?group=${group}`, { headers: fleet })).json()) as {
        breakers: { state: string }[];
      }
    ).breakers[0]?.state;
  /**
   * An operator forces the breaker open and lets it recover (no learning period to wait out, unlike
   * a quorum on a fresh controller); three instances keep it company until it reaches `wanted`.
   */
  const openUntil = async (group: string, dependency: string, wanted: string) => {
    const first = await beat(group, dependency, 'o1', 'open');
    const breakerId = first.json?.breakers?.[0]?.breakerId;
    if (!breakerId)
      throw new Error(`bench breaker ${group}/${dependency}: ${first.status} ${JSON.stringify(first.json)}`);
    for (const action of ['force_open', 'resume_ramp']) {
      const res = await fetch(`${base}/v1/admin/breakers/${breakerId}/actions`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ action, reason: 'bench setup' }),
      });
      if (res.status !== 200) throw new Error(`bench ${action}: ${res.status} ${await res.text()}`);
    }
    for (let round = 0; ; round++) {
      if (round > 100) throw new Error(`bench breaker ${group}/${dependency} did not reach ${wanted}`);
      await Promise.all(['o1', 'o2', 'o3'].map((id) => beat(group, dependency, id, 'open')));
      if ((await stateOf(group)) === wanted) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  await putPool('bench-pool', {
    dependencies: ['bench-llm'],
    probe: {
      concurrency: 1_000_000,
      ratePerSec: 1_000_000,
      leaseTtlMs: 1000,
      cooldownMs: 100,
      leases: 'live',
    },
  });
  await openUntil('bench-probe', 'bench-llm', 'probing');

  await putPool('bench-ramp-pool', {
    dependencies: ['bench-ramped'],
    probe: {
      concurrency: 10,
      ratePerSec: 100,
      leaseTtlMs: 5000,
      cooldownMs: 100,
      probesToPass: 1,
      leases: 'live',
    },
    ramp: { dwellMs: 3_600_000 },
  });
  await openUntil('bench-ramp', 'bench-ramped', 'probing');
  const lease = await post('/v1/probes/lease', {
    instanceId: 'o1',
    group: 'bench-ramp',
    dependency: 'bench-ramped',
  });
  if (lease.status !== 201)
    throw new Error(`bench ramp lease: ${lease.status} ${JSON.stringify(lease.json)}`);
  await post(`/v1/probes/${lease.json?.token}/result`, { outcome: 'success', latencyMs: 20 });
  if ((await stateOf('bench-ramp')) !== 'ramping') throw new Error('bench breaker did not reach ramping');

  const closedBody = (fleetSize: number, i: number) => ({
    instanceId: `worker-${i}`,
    group: `bench-fleet-${fleetSize}`,
    region: 'eu-west',
    breakers: [
      { dependency: 'bench-api', state: 'closed', evidence: evidence(false), demand: { standard: 2 } },
    ],
  });
  return {
    key,
    leaseBody: (i) => ({
      instanceId: `lease-${i % LEASERS}`,
      group: 'bench-probe',
      dependency: 'bench-llm',
      class: 'standard',
    }),
    heartbeatBody: closedBody,
    rampingBody: (i) => ({
      instanceId: `ramp-${i}`,
      group: 'bench-ramp',
      region: 'eu-west',
      breakers: [
        { dependency: 'bench-ramped', state: 'closed', evidence: evidence(false), demand: { standard: 2 } },
      ],
    }),
    registerRamping: () => many(1000, (i) => beat('bench-ramp', 'bench-ramped', `ramp-${i}`, 'closed')),
    registerLeasers: () => many(LEASERS, (i) => beat('bench-probe', 'bench-llm', `lease-${i}`, 'paused')),
    register: (fleetSize, portOf) =>
      many(fleetSize, (i) => post('/v1/heartbeats', closedBody(fleetSize, i), portOf?.(i))),
  };
}

const ADMIN_TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;
