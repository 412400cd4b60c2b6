// Real services for the recovery tests: a fresh Postgres database (migrated), a private
// redis-server that a test may kill and restart, free loopback ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { migrations } from '@recloser/migrations';
import pg from 'pg';
import { DataSource } from 'typeorm';

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface TestDatabase {
  name: string;
  url: string;
  /** a migrated TypeORM DataSource on it */
  dataSource: DataSource;
  drop(): Promise<void>;
}

/** Creates `recloser_<label>_<random>`, runs every migration, and drops it on `drop()`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `recloser_${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  const dataSource = new DataSource({ type: 'postgres', url, migrations, synchronize: false });
  await dataSource.initialize();
  await dataSource.runMigrations();
  return {
    name,
    url,
    dataSource,
    async drop() {
      await dataSource.destroy().catch(() => undefined);
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A key prefix of our own on the shared Redis (never flushed: others' tests use it too). */
export function testPrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString('hex')}:`;
}

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
