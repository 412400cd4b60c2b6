// A fake provider (node:http on loopback) that does what a fencing-aware resource does: remember
// the highest fencing number it has seen and refuse any call that carries a lower one.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FencingProvider {
  url: string;
  /** fencing numbers of the calls it served, in order */
  honoured: number[];
  /** fencing numbers of the calls it refused as stale */
  refused: number[];
  /** one probe call carrying a token's fencing number; resolves to the HTTP status */
  call(fencing: number): Promise<number>;
  close(): Promise<void>;
}

export async function startFencingProvider(): Promise<FencingProvider> {
  let highest = -Infinity;
  const honoured: number[] = [];
  const refused: number[] = [];
  const server = createServer((req, res) => {
    const fencing = Number(req.headers['x-fencing-token']);
    req.resume();
    if (!Number.isFinite(fencing) || fencing < highest) {
      refused.push(fencing);
      res.writeHead(409).end('stale fencing token');
      return;
    }
    highest = fencing;
    honoured.push(fencing);
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    honoured,
    refused,
    async call(fencing) {
      const res = await fetch(url, { method: 'POST', headers: { 'x-fencing-token': String(fencing) } });
      await res.text();
      return res.status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
