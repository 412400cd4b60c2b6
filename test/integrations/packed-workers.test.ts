// The packages as a user gets them: every publishable workspace package packed with `npm pack`,
// installed from the tarballs into a project outside the repository, and an ES-module worker and a
// CommonJS worker from that project run against the real controller (in-process, real Postgres
// and Redis, over HTTP): the provider dies, the group trips by quorum, both pause without calling
// it while OPEN, and both recover once it is back. Bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import {
  manifest,
  publishableWorkspaces,
  ROOT,
  scratchProject,
  type ScratchProject,
} from './support/scratch.js';

const GROUP = 'packed-workers';
const DEPENDENCY = 'packed-provider';
const COOLDOWN_MS = 3000;

let t: TestApp;
let provider: FakeProvider;
let scratch: ScratchProject;
let baseUrl: string;
let key: string;

beforeAll(async () => {
  scratch = await scratchProject();
  t = await bootTestApp({ RECLOSER_HEARTBEAT_INTERVAL_MS: '200', RECLOSER_HEARTBEAT_TTL_MS: '1000' });
  baseUrl = await t.listen();
  provider = await startFakeProvider({ kind: 'up' });
  const pool = await t.admin('PUT', '/v1/admin/pools/packed-pool', {
    dependencies: [DEPENDENCY],
    probe: { concurrency: 1, ratePerSec: 1, leaseTtlMs: 3000, cooldownMs: COOLDOWN_MS, probesToPass: 1 },
    capacity: { standard: { ratePerSec: 100, concurrency: 50 } },
    ramp: {
      steps: [0.5, 1.0],
      dwellMs: 500,
      minSample: 2,
      classOrder: ['standard'],
      gates: {
        minSuccessRate: 0.8,
        maxLatencyP95Ms: 2000,
        maxTtftP95Ms: 2000,
        maxQueueAgeMs: 5000,
        max429Rate: 0.1,
      },
    },
  });
  expect(pool.status).toBe(200);
  ({ key } = await createFleetKey(t, [GROUP]));
});

afterAll(async () => {
  await provider?.close();
  await t?.close();
  scratch?.remove();
});

interface Worker {
  lines: () => any[];
  exited: Promise<number | null>;
  kill: () => void;
}

function startWorker(file: string, instanceId: string): Worker {
  copyFileSync(join(ROOT, 'test/integrations/scratch', file), join(scratch.dir, file));
  const child = spawn(process.execPath, [file], {
    cwd: scratch.dir,
    env: {
      PATH: process.env.PATH,
      RECLOSER_URL: baseUrl,
      RECLOSER_FLEET_KEY: key,
      INSTANCE_ID: instanceId,
      GROUP,
      DEPENDENCY,
      PROVIDER_URL: provider.url,
      DEADLINE_MS: '40000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (code !== 0) process.stderr.write(`${file} exited ${code}: ${err}\n${out}\n`);
      resolve(code);
    }),
  );
  return {
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}

async function breaker(): Promise<any> {
  const { body } = await t.admin('GET', '/v1/admin/overview');
  return (
    body.breakers.find((b: any) => b.group === GROUP && b.dependency === DEPENDENCY) ?? {
      state: 'unknown',
      live: 0,
    }
  );
}

describe('publishable packages installed from their tarballs into a scratch project', () => {
  it('packs every publishable package with built files, types and a README only', () => {
    const names = publishableWorkspaces().map((dir) => manifest(dir).name);
    expect(names).toEqual(
      expect.arrayContaining(['@recloser/core', '@recloser/client', '@recloser/nestjs', '@recloser/sidecar']),
    );
    // the controller stays an application
    expect(names).not.toContain('@recloser/controller');
    for (const name of names) {
      const installed = join(scratch.dir, 'node_modules', name);
      expect(existsSync(join(installed, 'README.md')), name).toBe(true);
      expect(existsSync(join(installed, 'dist/index.js')), name).toBe(true);
      expect(existsSync(join(installed, 'dist/index.d.ts')), name).toBe(true);
      expect(existsSync(join(installed, 'src')), `${name} ships its sources`).toBe(false);
    }
    const client = JSON.parse(
      readFileSync(join(scratch.dir, 'node_modules/@recloser/client/package.json'), 'utf8'),
    );
    expect(client.private).toBeUndefined();
    expect(client.dependencies['@recloser/core']).toBe(manifest('libs/core').version);
    expect(existsSync(join(scratch.dir, 'node_modules/.bin/recloser-sidecar'))).toBe(true);
  });

  it('an ES-module worker and a CommonJS worker trip, pause while OPEN and recover', async () => {
    const esm = startWorker('worker.mjs', 'esm-worker');
    const cjs = startWorker('worker.cjs', 'cjs-worker');
    try {
      const live = await pollUntil(breaker, (b) => b.live === 2, { attempts: 100, everyMs: 100 });
      expect(live.live).toBe(2);
      // learning period (one TTL) over with both healthy, then the provider dies
      await sleep(1200);
      provider.setMode({ kind: 'down' });
      const opened = await pollUntil(breaker, (b) => b.state === 'open', { attempts: 100, everyMs: 100 });
      expect(opened.state).toBe('open');
      const openAt = Date.now();
      // both learn the OPEN plan within a heartbeat or two; the cooldown (≥ 80 % of 3 s) keeps
      // the prober waiting: the provider hears nothing from them meanwhile
      await sleep(1800);
      expect(provider.callsSince(openAt + 500).filter((c) => c.at <= openAt + 1800)).toEqual([]);
      provider.setMode({ kind: 'up' });
      const closed = await pollUntil(breaker, (b) => b.state === 'closed', { attempts: 300, everyMs: 100 });
      expect(closed.state).toBe('closed');

      const codes = await Promise.race([
        Promise.all([esm.exited, cjs.exited]),
        sleep(30_000).then(() => 'timeout' as const),
      ]);
      expect(codes).toEqual([0, 0]);
      for (const [worker, module] of [
        [esm, 'esm'],
        [cjs, 'cjs'],
      ] as const) {
        const summary = worker.lines().find((l) => l.event === 'summary');
        expect(summary, module).toMatchObject({ module, recovered: true });
        expect(summary.seen).toContain('paused');
        expect(summary.refused.paused).toBeGreaterThan(0);
        expect(summary.okAfterRecovery).toBeGreaterThanOrEqual(10);
      }
    } finally {
      esm.kill();
      cjs.kill();
    }
  });
});
