/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape; each test asserts the fields it needs */
// Controller replicas as separate processes (the built dist), each on a free loopback port, all on
// one database and one Redis: how the controller runs in production behind a load balancer.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './services.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ADMIN_TOKEN = `recovery-admin-${randomBytes(8).toString('hex')}`;

let built = false;

/** `npm run build` once per test file (tsc -b is incremental: a no-op when nothing changed). */
export async function buildOnce(): Promise<void> {
  if (built) return;
  await promisify(execFile)('npm', ['run', '-s', 'build'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  built = true;
}

export interface Replica {
  url: string;
  process: ChildProcess;
  output: () => string;
}

export interface ReplicaSet {
  replicas: Replica[];
  databaseName: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `count` replicas on a fresh database (the first creates and migrates it; the others join
 * once it is ready). `env` adds to the replicas' environment (REDIS_URL, timers, …).
 */
export async function startReplicas(count: number, env: NodeJS.ProcessEnv = {}): Promise<ReplicaSet> {
  await buildOnce();
  const databaseName = `recloser_replicas_${randomBytes(5).toString('hex')}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/${databaseName}`;
  const replicas: Replica[] = [];
  const startOne = async (): Promise<Replica> => {
    const port = await freePort();
    let out = '';
    const child = spawn(process.execPath, ['apps/controller/dist/main.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        REDIS_URL: 'redis://127.0.0.1:6379',
        RECLOSER_ADMIN_TOKEN: ADMIN_TOKEN,
        RECLOSER_HEARTBEAT_INTERVAL_MS: '200',
        RECLOSER_HEARTBEAT_TTL_MS: '1000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`replica exited (${child.exitCode}): ${out.slice(-2000)}`);
      try {
        if ((await fetch(`${url}/health/ready`)).status === 200)
          return { url, process: child, output: () => out };
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    throw new Error(`replica on ${url} not ready in 30 s: ${out.slice(-2000)}`);
  };
  const stop = async () => {
    await Promise.all(
      replicas.map(
        (r) =>
          new Promise<void>((resolve) => {
            if (r.process.exitCode !== null) return resolve();
            const timer = setTimeout(() => r.process.kill('SIGKILL'), 5000);
            r.process.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            r.process.kill('SIGTERM');
          }),
      ),
    );
    const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  };
  try {
    replicas.push(await startOne());
    replicas.push(...(await Promise.all(Array.from({ length: count - 1 }, startOne))));
  } catch (err) {
    await stop();
    throw err;
  }
  return { replicas, databaseName, databaseUrl, stop };
}

/** JSON over HTTP with a bearer token; the body is parsed when it is JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers };
}
