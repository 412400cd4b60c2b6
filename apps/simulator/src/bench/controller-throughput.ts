// How fast is one controller replica on its two hot endpoints? Lease grants (POST /v1/probes/lease,
// every request a grant: Postgres reads + one Lua script in Redis) and heartbeats (POST
// /v1/heartbeats: presence + verdict upserts + quorum + plan), each beside a bare Fastify route
// answering JSON in this process, measured in the same run with the same client over loopback: a
// bounded number of requests at a bounded concurrency. The replica is the built dist, as a child
// process, on a database and Redis key prefix of its own.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { startController } from '../live/ControllerProcess.js';
import { testDatabase } from '../live/testDatabase.js';
import { formatTable } from './table.js';

const REQUESTS = 4000;
const CONCURRENCY = 32;
const WARMUP = 300;
/** no run takes longer than this, whatever the machine */
const TIME_CAP_MS = 60_000;

interface Result {
  name: string;
  requests: number;
  errors: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
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
}

export async function run(): Promise<void> {
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (req) => ({
    ok: true,
    echo: (req.body as { instanceId?: string })?.instanceId ?? null,
  }));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const barePort = (bare.server.address() as AddressInfo).port;

  const database = testDatabase('bench');
  const controller = await startController({
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      RECLOSER_ADMIN_TOKEN: ADMIN_TOKEN,
      RECLOSER_HEARTBEAT_INTERVAL_MS: '200',
      RECLOSER_HEARTBEAT_TTL_MS: '1000',
    },
  }).catch(async (err: unknown) => {
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
    const targets: [Target, Target][] = [
      againstBare('POST /v1/probes/lease (grant)', '/v1/probes/lease', (i) => setup.leaseBody(i), 201),
      againstBare('POST /v1/heartbeats', '/v1/heartbeats', (i) => setup.heartbeatBody(i), 200),
    ];
    const rows: string[][] = [
      ['endpoint', 'requests', 'errors', 'req/s', 'p50 ms', 'p99 ms', 'req/s vs bare', 'p99 vs bare'],
    ];
    for (const [subject, baseline] of targets) {
      // interleave: bare, subject, bare, subject … and keep the better of each (noise only slows)
      const b1 = await load(baseline, 0);
      const s1 = await load(subject, 0);
      const b2 = await load(baseline, REQUESTS);
      const s2 = await load(subject, REQUESTS);
      const b = b1.perSec >= b2.perSec ? b1 : b2;
      const s = s1.perSec >= s2.perSec ? s1 : s2;
      rows.push(row(s, b), row(b, null));
    }
    console.log(
      `one controller replica (child process) vs a bare Fastify route; ${REQUESTS} requests each, ` +
        `${CONCURRENCY} concurrent, keep-alive over loopback; best of two interleaved runs`,
    );
    console.log(formatTable(rows));
  } finally {
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
  ];
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
      if (status !== target.ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    name: target.name,
    requests: latencies.length,
    errors,
    perSec: (latencies.length / elapsedMs) * 1000,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

function send(agent: Agent, target: Target, i: number): Promise<number> {
  const payload = JSON.stringify(target.body(i));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port: target.port,
        path: target.path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
        },
      },
      (res) => {
        res.resume();
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
  heartbeatBody(i: number): unknown;
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
 * A fleet key; a probing breaker whose pool grants without limit (so every lease request is a
 * grant, the path under test), reached through a real quorum and the ramp tick; and a closed
 * breaker for the heartbeats (the common case: a fleet reporting healthy dependencies).
 */
async function prepare(port: number): Promise<Setup> {
  const base = `http://127.0.0.1:${port}`;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const keyRes = await fetch(`${base}/v1/admin/fleet-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'bench', groups: ['bench-probe', 'bench-fleet'] }),
  });
  const { key } = (await keyRes.json()) as { key: string };
  const pool = await fetch(`${base}/v1/admin/pools/bench-pool`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({
      dependencies: ['bench-llm'],
      probe: { concurrency: 1_000_000, ratePerSec: 1_000_000, leaseTtlMs: 120_000, cooldownMs: 100 },
    }),
  });
  if (pool.status !== 200) throw new Error(`bench pool: ${pool.status} ${await pool.text()}`);
  const fleet = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let round = 0; ; round++) {
    if (round > 100) throw new Error('bench breaker did not reach probing');
    await Promise.all(
      ['o1', 'o2', 'o3'].map((instanceId) =>
        fetch(`${base}/v1/heartbeats`, {
          method: 'POST',
          headers: fleet,
          body: JSON.stringify({
            instanceId,
            group: 'bench-probe',
            region: 'eu-west',
            breakers: [{ dependency: 'bench-llm', state: 'open', evidence: evidence(true) }],
          }),
        }).then((r) => r.text()),
      ),
    );
    const g = (await (await fetch(`${base}/v1/breakers?group=bench-probe`, { headers: fleet })).json()) as {
      breakers: { state: string }[];
    };
    if (g.breakers[0]?.state === 'probing') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    key,
    leaseBody: (i) => ({
      instanceId: `lease-${i}`,
      group: 'bench-probe',
      dependency: 'bench-llm',
      class: 'standard',
    }),
    heartbeatBody: (i) => ({
      instanceId: `worker-${i % 500}`,
      group: 'bench-fleet',
      region: 'eu-west',
      breakers: [
        { dependency: 'bench-api', state: 'closed', evidence: evidence(false), demand: { standard: 2 } },
      ],
    }),
  };
}

const ADMIN_TOKEN = `bench-admin-${randomBytes(8).toString('hex')}`;
