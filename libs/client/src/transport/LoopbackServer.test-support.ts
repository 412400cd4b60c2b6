// A loopback HTTP server for unit tests of calls that go over the network: each path answers a
// fixed way, and every request is counted, so a test can show a refused call never left.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  url: string;
  /** requests received, by path */
  hits: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

/** /ok → 200, /busy → 429 Retry-After: 2, /down → 503, /slow → 200 after 2 s */
export async function startLoopbackServer(): Promise<LoopbackServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    req.resume();
    if (path === '/busy') res.writeHead(429, { 'retry-after': '2' }).end();
    else if (path === '/down') res.writeHead(503).end();
    else if (path === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2_000);
    else res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
