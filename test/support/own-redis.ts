// A redis-server of the test's own on a free loopback port, without persistence, for tests that
// must lose Redis data: kill it (every key gone) and start it again, or flush it (nobody else's keys).
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { freePort } from '../../apps/simulator/src/live/freePort.js';

export interface PrivateRedis {
  port: number;
  url: string;
  /** kill -9: every key is gone (no persistence) */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A redis-server of our own on a free port, without persistence, so killing it loses its data. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100; i++) {
      if (await answers(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${port} did not start`);
  };
  const kill = async (signal: NodeJS.Signals) => {
    const c = child as ChildProcess | null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
    child = null;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill: () => kill('SIGKILL'),
    start,
    stop: () => kill('SIGTERM'),
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => {
      socket.write('PING\r\n');
      socket.once('data', (d: Buffer) => {
        socket.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
    });
  });
}

export interface OwnRedis {
  url: string;
  /** a client to this server only (FLUSHALL here touches nobody else) */
  client: Redis;
  stop(): Promise<void>;
}

/** A private redis-server with a client connected to it. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const server = await startPrivateRedis();
  const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  await client.connect();
  return {
    url: server.url,
    client,
    async stop() {
      client.disconnect();
      await server.stop();
    },
  };
}
