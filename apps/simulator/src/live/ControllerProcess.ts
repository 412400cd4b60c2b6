// The real controller (node apps/controller/dist/main.js, the built dist) as a child process on a
// free loopback port: started, awaited until /health/ready, stopped by its own pid. The one
// launcher of live mode, the bench and the end-to-end tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './freePort.js';

/** the repository root, from the sources (vitest) and from dist alike */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/controller/dist/main.js');
/** how much of its output is kept for error messages and tests */
const OUTPUT_TAIL = 64 * 1024;

export interface ControllerLaunch {
  /** its whole environment but PORT, which is picked here (nothing is inherited unless passed) */
  env: NodeJS.ProcessEnv;
  /** also write its output to this file */
  logFile?: string;
  readyTimeoutMs?: number;
  /** node's own flags before the script (e.g. `--cpu-prof`, which NODE_OPTIONS does not allow) */
  execArgv?: readonly string[];
}

export interface ControllerProcess {
  url: string;
  port: number;
  process: ChildProcess;
  /** the tail of its stdout and stderr */
  output(): string;
  /**
   * SIGTERM (a graceful stop, SIGKILL after 5 s), or SIGKILL for a crash; resolves once it has
   * exited. Nothing if it already has.
   */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export async function startController(launch: ControllerLaunch): Promise<ControllerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(launch.execArgv ?? []), MAIN], {
    cwd: ROOT,
    env: { ...launch.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const log = launch.logFile ? createWriteStream(launch.logFile) : null;
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-OUTPUT_TAIL);
      log?.write(d);
    });
  }
  // exitCode stays null after a signal, so whether it has exited is kept here
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  // 'close', not 'exit': output may still arrive after the exit, and a write after end() throws
  child.once('close', () => log?.end());
  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> => {
    if (exited) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const where = () => (launch.logFile ? `log: ${launch.logFile}` : out.slice(-2000));
  const readyTimeoutMs = launch.readyTimeoutMs ?? 60_000;
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(
        `the controller exited (${child.exitCode ?? child.signalCode}) while starting: ${where()}`,
      );
    try {
      const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return { url, port, process: child, output: () => out, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop('SIGKILL');
  throw new Error(`the controller on ${url} was not ready within ${readyTimeoutMs} ms: ${where()}`);
}
