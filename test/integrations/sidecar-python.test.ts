// recloser-sidecar end to end with a worker in another language: the real command (built dist)
// beside a Python client that uses only the standard library, the real controller (in-process,
// real Postgres and Redis) and a loopback upstream. The upstream dies: the group opens and the
// sidecar answers 503 with Retry-After and a reason without calling it; it comes back: answers
// within the ramp's allowance, then everything passes again. Bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import { ROOT } from './support/scratch.js';

const GROUP = 'sidecar-workers';
const DEPENDENCY = 'sidecar-upstream';
const COOLDOWN_MS = 2500;
/** the ramp admits 4/s and 20/s before its last step; the Python worker asks ~50/s */
const CAPACITY_PER_SEC = 200;
const STEPS = [0.02, 0.1, 1.0];
const PACE_MS = 20;

let t: TestApp;
let provider: FakeProvider;
let sidecar: ChildProcessWithoutNullStreams;
let sidecarUrl: string;
let python: ChildProcessWithoutNullStreams | null = null;
const answers: { at: number; status: number; reason: string | null; retryAfter: number | null }[] = [];

beforeAll(async () => {
  t = await bootTestApp({ RECLOSER_HEARTBEAT_INTERVAL_MS: '200', RECLOSER_HEARTBEAT_TTL_MS: '1000' });
  const baseUrl = await t.listen();
  provider = await startFakeProvider({ kind: 'up' });
  const pool = await t.admin('PUT', '/v1/admin/pools/sidecar-pool', {
    dependencies: [DEPENDENCY],
    probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 3000, cooldownMs: COOLDOWN_MS, probesToPass: 1 },
    capacity: { standard: { ratePerSec: CAPACITY_PER_SEC, concurrency: 50 } },
    ramp: {
      steps: STEPS,
      dwellMs: 1500,
      minSample: 3,
      classOrder: ['standard'],
      gates: {
        minSuccessRate: 0.9,
        maxLatencyP95Ms: 2000,
        maxTtftP95Ms: 2000,
        maxQueueAgeMs: 5000,
        max429Rate: 0.05,
      },
    },
  });
  expect(pool.status).toBe(200);
  expect(
    (await t.admin('PUT', `/v1/admin/groups/${GROUP}/quorum`, { fraction: 0.5, minOpen: 1 })).status,
  ).toBe(200);
  const { key } = await createFleetKey(t, [GROUP]);

  sidecar = spawn(process.execPath, [join(ROOT, 'apps/sidecar/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      RECLOSER_URL: baseUrl,
      RECLOSER_FLEET_KEY: key,
      RECLOSER_GROUP: GROUP,
      RECLOSER_INSTANCE_ID: 'python-worker-1',
      RECLOSER_REGION: 'eu-west',
      RECLOSER_UPSTREAMS: `${DEPENDENCY}=${provider.url}`,
      RECLOSER_SIDECAR_PORT: '0',
    },
  });
  let out = '';
  sidecarUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sidecar did not start: ${out}`)), 15_000);
    sidecar.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    sidecar.stderr.on('data', (d: Buffer) => (out += d.toString()));
    sidecar.once('exit', (code) => reject(new Error(`the sidecar exited (${code}): ${out}`)));
  });
});

afterAll(async () => {
  python?.kill('SIGKILL');
  if (sidecar && sidecar.exitCode === null) {
    const exited = new Promise((r) => sidecar.once('exit', r));
    sidecar.kill('SIGTERM');
    await Promise.race([exited, sleep(8000)]);
    sidecar.kill('SIGKILL');
  }
  await provider?.close();
  await t?.close();
});

async function breaker(): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return (
    body.breakers.find((b: any) => b.group === GROUP && b.dependency === DEPENDENCY) ?? { state: 'unknown' }
  );
}

const between = (from: number, to: number) => answers.filter((a) => a.at >= from && a.at <= to);

/** the most answers in any 1 s window (the list in time order) */
function peakPerSecond(list: { at: number }[]): number {
  let peak = 0;
  for (let i = 0, j = 0; i < list.length; i++) {
    while (list[i]!.at - list[j]!.at >= 1000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

describe('recloser-sidecar with a Python standard-library worker', () => {
  it('answers --help with the configuration file and the environment', async () => {
    const help = await new Promise<string>((resolve) => {
      const p = spawn(process.execPath, [join(ROOT, 'apps/sidecar/dist/main.js'), '--help']);
      let text = '';
      p.stdout.on('data', (d: Buffer) => (text += d.toString()));
      p.once('exit', () => resolve(text));
    });
    expect(help).toContain('RECLOSER_UPSTREAMS');
    expect(help).toContain('RECLOSER_SIDECAR_CONFIG');
    expect(help).toContain('"dependencies"');
  });

  it('calls nothing while OPEN, answers within the allowance while RAMPING, and recovers', async () => {
    python = spawn('python3', [
      join(ROOT, 'test/integrations/sidecar_client.py'),
      sidecarUrl,
      DEPENDENCY,
      String(PACE_MS),
      '60',
    ]);
    let buffer = '';
    python.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('{')) answers.push(JSON.parse(line));
    });
    let stderr = '';
    python.stderr.on('data', (d: Buffer) => (stderr += d.toString()));

    // healthy: the worker's calls pass through
    const healthy = await pollUntil(breaker, (b) => b.live === 1, { attempts: 100, everyMs: 100 });
    expect(healthy.live, stderr).toBe(1);
    await sleep(1200); // the learning period (one TTL)
    expect(answers.length, stderr).toBeGreaterThan(20);
    expect(answers.every((a) => a.status === 200)).toBe(true);

    // the upstream dies: its 503s open the sidecar's breaker and, by quorum, the group
    provider.setMode({ kind: 'down' });
    const opened = await pollUntil(breaker, (b) => b.state === 'open', { attempts: 100, everyMs: 100 });
    expect(opened.state).toBe('open');
    const openAt = Date.now();
    await sleep(1800);
    const heldAt = Date.now();
    // zero upstream calls while OPEN (the cooldown is at least 80 % of 2.5 s)
    expect(provider.callsSince(openAt + 500).filter((c) => c.at <= heldAt)).toEqual([]);
    const whileOpen = between(openAt + 500, heldAt);
    expect(whileOpen.length).toBeGreaterThan(20);
    expect(whileOpen.every((a) => a.status === 503 && a.reason === 'paused' && a.retryAfter !== null)).toBe(
      true,
    );

    // the upstream comes back: one probe, then the ramp, then CLOSED
    provider.setMode({ kind: 'up' });
    const ramping = await pollUntil(breaker, (b) => b.state === 'ramping', { attempts: 150, everyMs: 100 });
    expect(ramping.state).toBe('ramping');
    const closed = await pollUntil(breaker, (b) => b.state === 'closed', { attempts: 200, everyMs: 100 });
    expect(closed.state).toBe('closed');
    const { body } = await t.admin('GET', `/v1/admin/transitions?breakerId=${opened.breakerId}`);
    const log = [...body.transitions].sort((a: any, b: any) => a.seq - b.seq);
    const rampAt = (step: number) =>
      Date.parse(log.find((tr: any) => tr.to === 'ramping' && tr.step === step).at);
    // before the last step the allowance is at most 20/s (+ its burst); the worker asked ~50/s
    const limited = between(rampAt(0) + 300, rampAt(STEPS.length - 1) - 300);
    const admitted = limited.filter((a) => a.status === 200);
    const refused = limited.filter((a) => a.status === 503);
    expect(admitted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(peakPerSecond(admitted)).toBeLessThanOrEqual(CAPACITY_PER_SEC * STEPS[1]! + 3);
    expect(
      refused.every(
        (a) => ['rate', 'not_admitted', 'concurrency'].includes(a.reason!) && a.retryAfter !== null,
      ),
    ).toBe(true);
    // what the worker was told passed is what the upstream received
    const upstream = provider
      .callsSince(rampAt(0) + 300)
      .filter((c) => c.at <= rampAt(STEPS.length - 1) - 300);
    expect(Math.abs(upstream.length - admitted.length)).toBeLessThanOrEqual(2);

    // recovered: every call passes again
    await sleep(1000);
    const after = Date.now();
    await sleep(1000);
    const recent = between(after, Date.now());
    expect(recent.length).toBeGreaterThan(20);
    expect(recent.every((a) => a.status === 200)).toBe(true);
    python.stdin.write('stop\n');
  });
});
