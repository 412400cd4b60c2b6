// The packages as a user gets them: every publishable workspace package packed with `npm pack`,
// installed from the tarballs into a project outside the repository, and an ES-module worker and a
// CommonJS worker from that project run against the real controller (in-process, real Postgres
// and Redis, over HTTP): the provider dies, the group trips by quorum, both pause without calling
// it while OPEN, and both recover once it is back. Bounded in count and time.
/* eslint-disable @typescript-eslint/no-explicit-any -- admin response bodies are JSON of any shape */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider.js';
import { createFleetKey } from '../support/fleet-key.js';
import { pollUntil, sleep } from '../support/fleet.js';
import { bootTestApp, type TestApp } from '../support/test-app.js';
import {
  manifest,
  pinned,
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
  // what the README's quick starts need beside the tarballs, at the versions the workspace pins
  scratch = await scratchProject(
    ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs', 'opossum', 'cockatiel', '@types/node'].map(
      pinned,
    ),
  );
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

  it("the README's quick starts run from the scratch project: NestJS module (type-checked), adapters, sidecar", async () => {
    const env = {
      PATH: process.env.PATH,
      RECLOSER_URL: baseUrl,
      RECLOSER_FLEET_KEY: key,
      GROUP,
      PROVIDER_URL: provider.url,
    };
    const copy = (file: string) =>
      copyFileSync(join(ROOT, 'test/integrations/scratch', file), join(scratch.dir, file));
    provider.setMode({ kind: 'up' });
    const from = Date.now();

    // the NestJS quick start, compiled by tsc against the types the tarballs installed
    copy('quickstart-nestjs.mts');
    writeFileSync(
      join(scratch.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          skipLibCheck: true,
          types: ['node'],
          outDir: 'out',
        },
        files: ['quickstart-nestjs.mts'],
      }),
    );
    await scratch.node([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
    const nest = await scratch.node(['out/quickstart-nestjs.mjs'], {
      ...env,
      INSTANCE_ID: 'quickstart-nest',
    });
    expect(JSON.parse(nest.stdout.trim().split('\n').at(-1)!)).toEqual({ quickstart: 'nestjs', status: 200 });

    copy('quickstart-adapters.mjs');
    const adapters = await scratch.node(['quickstart-adapters.mjs'], {
      ...env,
      INSTANCE_ID: 'quickstart-adapters',
    });
    expect(JSON.parse(adapters.stdout.trim().split('\n').at(-1)!)).toEqual({
      quickstart: 'adapters',
      opossum: 200,
      cockatiel: 200,
    });
    const { body } = await t.admin('GET', '/v1/admin/overview');
    const listed = body.breakers.filter((b: any) => b.group === GROUP).map((b: any) => b.dependency);
    expect(listed).toEqual(expect.arrayContaining(['llm-provider', 'payments']));

    // the sidecar command the tarball installed, and the Python quick start beside it
    copy('quickstart_sidecar.py');
    const sidecar = spawn(join(scratch.dir, 'node_modules/.bin/recloser-sidecar'), ['--port', '0'], {
      cwd: scratch.dir,
      env: {
        ...env,
        RECLOSER_GROUP: GROUP,
        RECLOSER_INSTANCE_ID: 'quickstart-sidecar',
        RECLOSER_UPSTREAMS: `llm-provider=${provider.url}`,
      },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        sidecar.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        sidecar.once('exit', (code) => reject(new Error(`recloser-sidecar exited (${code}): ${out}`)));
      });
      const py = await new Promise<string>((resolve, reject) => {
        const p = spawn('python3', ['quickstart_sidecar.py'], {
          cwd: scratch.dir,
          env: { ...env, SIDECAR_URL: url },
        });
        let out = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => (out += d.toString()));
        p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(out))));
      });
      expect(JSON.parse(py.trim())).toEqual({ quickstart: 'sidecar', status: 200 });
    } finally {
      sidecar.kill('SIGTERM');
    }
    // every quick start really reached the provider
    expect(provider.callsSince(from).length).toBeGreaterThanOrEqual(4);
  });
});
