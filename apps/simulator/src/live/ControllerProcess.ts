// Starts the real controller (node apps/controller/dist/main.js) as a child process on a free
// loopback port, waits until it is ready, and stops it by its own pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StartedController {
  url: string;
  adminToken: string;
  logFile: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => ok(port));
    });
  });
}

const MAIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../controller/dist/main.js');

export async function startController(
  env: { databaseUrl: string; redisUrl: string },
  readyTimeoutMs = 60_000,
): Promise<StartedController> {
  const port = await freePort();
  const adminToken = randomBytes(24).toString('hex');
  const logFile = join(tmpdir(), `recloser-live-controller-${port}.log`);
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      RECLOSER_ADMIN_TOKEN: adminToken,
      // its own key space, so a live run never touches other users of the same Redis
      RECLOSER_REDIS_PREFIX: `recloser-live-${port}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (exited !== null || child.pid === undefined) return;
    const gone = new Promise<void>((ok) => child.once('exit', () => ok()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  };
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (exited !== null)
      throw new Error(`the controller exited with code ${exited} while starting (log: ${logFile})`);
    try {
      const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return { url, adminToken, logFile, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  await stop();
  throw new Error(`the controller was not ready within ${readyTimeoutMs} ms (log: ${logFile})`);
}
