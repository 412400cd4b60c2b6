// What does the sidecar add to a request? The same sequential keep-alive client calls a loopback
// upstream (its own process) directly and through recloser-sidecar (its own process, the real
// proxy and SDK, the breaker CLOSED), in interleaved blocks so both see the same machine; p50 and
// p99 of each and the difference. Bounded in count and time.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { formatTable } from './table.js';

const BLOCKS = 20;
const PER_BLOCK = 100;
const WARMUP = 200;
const TIME_CAP_MS = 30_000;

function get(agent: Agent, url: URL): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`status ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const quantile = (sorted: number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (x: number): string => `${x.toFixed(3)} ms`;

/** a loopback upstream in a process of its own, as a provider would be */
const UPSTREAM = `
import { createServer } from 'node:http';
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
server.listen(0, '127.0.0.1', () => process.stdout.write('http://127.0.0.1:' + server.address().port + '\\n'));
`;

/** the first line a child prints: its URL */
function urlOf(child: ChildProcess, name: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`the ${name} exited (${code})`)));
  });
}

export async function run(): Promise<void> {
  const stdio: ['ignore', 'pipe', 'inherit'] = ['ignore', 'pipe', 'inherit'];
  const upstream = spawn(process.execPath, ['--input-type=module', '-e', UPSTREAM], { stdio });
  let sidecar: ChildProcess | null = null;
  try {
    const upstreamUrl = await urlOf(upstream, 'upstream');
    sidecar = spawn(
      process.execPath,
      [fileURLToPath(new URL('./sidecar-child.js', import.meta.url)), upstreamUrl],
      {
        stdio,
      },
    );
    const sidecarUrl = await urlOf(sidecar, 'sidecar');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const direct = new URL(`${upstreamUrl}/work`);
    const proxied = new URL(`${sidecarUrl}/upstream/work`);
    for (let i = 0; i < WARMUP; i++) {
      await get(agent, direct);
      await get(agent, proxied);
    }
    const samples = { direct: [] as number[], sidecar: [] as number[] };
    const deadline = Date.now() + TIME_CAP_MS;
    for (let b = 0; b < BLOCKS && Date.now() < deadline; b++) {
      for (let i = 0; i < PER_BLOCK; i++) samples.direct.push(await get(agent, direct));
      for (let i = 0; i < PER_BLOCK; i++) samples.sidecar.push(await get(agent, proxied));
    }
    agent.destroy();
    const d = [...samples.direct].sort((a, b) => a - b);
    const s = [...samples.sidecar].sort((a, b) => a - b);
    console.log(
      formatTable([
        ['one request, sequential, keep-alive, loopback', 'requests', 'p50', 'p99'],
        ['direct to the upstream', String(d.length), ms(quantile(d, 0.5)), ms(quantile(d, 0.99))],
        ['through recloser-sidecar', String(s.length), ms(quantile(s, 0.5)), ms(quantile(s, 0.99))],
        [
          'added by the sidecar',
          '',
          ms(quantile(s, 0.5) - quantile(d, 0.5)),
          ms(quantile(s, 0.99) - quantile(d, 0.99)),
        ],
      ]),
    );
  } finally {
    sidecar?.kill('SIGTERM');
    upstream.kill('SIGTERM');
  }
}
