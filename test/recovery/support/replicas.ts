/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are JSON of any shape; each test asserts the fields it needs */
// Controller replicas as separate processes (the built dist), each on a free loopback port, all on
// one database and one Redis: how the controller runs in production behind a load balancer.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  startController,
  type ControllerProcess,
} from '../../../apps/simulator/src/live/ControllerProcess.js';
import { testDatabase } from '../../support/test-database.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ADMIN_TOKEN = `recovery-admin-${randomBytes(8).toString('hex')}`;

let built = false;

/** `npm run build` once per test file (tsc -b is incremental: a no-op when nothing changed). */
export async function buildOnce(): Promise<void> {
  if (built) return;
  await promisify(execFile)('npm', ['run', '-s', 'build'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  built = true;
}

export interface ReplicaSet {
  replicas: ControllerProcess[];
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
  const db = testDatabase('replicas');
  const replicas: ControllerProcess[] = [];
  const startOne = () =>
    startController({
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: db.url,
        REDIS_URL: 'redis://127.0.0.1:6379',
        RECLOSER_ADMIN_TOKEN: ADMIN_TOKEN,
        RECLOSER_HEARTBEAT_INTERVAL_MS: '200',
        RECLOSER_HEARTBEAT_TTL_MS: '1000',
        ...env,
      },
      readyTimeoutMs: 45_000, // two boots in a row stay within the hook timeout (120 s) on a loaded machine
    });
  const stop = async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db.drop();
  };
  try {
    replicas.push(await startOne());
    // settled, not all: a replica that did start is still stopped when another fails
    const rest = await Promise.allSettled(Array.from({ length: count - 1 }, startOne));
    for (const r of rest) if (r.status === 'fulfilled') replicas.push(r.value);
    const failed = rest.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await stop();
    throw err;
  }
  return { replicas, databaseName: db.name, databaseUrl: db.url, stop };
}

/**
 * A request that has had no answer for this long fails naming itself: a replica that stops
 * answering then shows as the request it stalled, not as the whole test's timeout.
 */
const CALL_TIMEOUT_MS = 30_000;

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
  let res: Response;
  let text: string;
  try {
    res = await fetch(base + path, {
      method,
      headers,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    text = await res.text();
  } catch (err) {
    throw new Error(`${method} ${base}${path}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers };
}
