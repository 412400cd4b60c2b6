// A provider on loopback for live mode: answers POST /v1/complete after a short latency, with a
// concurrency limit (503 beyond it), an outage switch (every call 503) and a capacity fraction.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeProviderOptions {
  /** calls served at once at full capacity */
  concurrency: number;
  latencyMs: number;
}

export class FakeProvider {
  private server: Server | null = null;
  private inflight = 0;
  private outage = false;
  private fraction = 1;
  served = 0;
  rejected = 0;

  constructor(private readonly options: FakeProviderOptions) {}

  async start(): Promise<string> {
    const server = createServer((req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/complete`;
  }

  setOutage(on: boolean): void {
    this.outage = on;
  }

  setCapacityFraction(fraction: number): void {
    this.fraction = fraction;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    const reject = (status: number): void => {
      this.rejected += 1;
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 429 ? { 'retry-after': '1' } : {}),
      });
      res.end(JSON.stringify({ error: status === 429 ? 'rate limited' : 'unavailable' }));
    };
    if (this.outage) return reject(503);
    if (this.inflight >= Math.max(1, Math.round(this.options.concurrency * this.fraction)))
      return reject(503);
    this.inflight += 1;
    setTimeout(() => {
      this.inflight -= 1;
      this.served += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, this.options.latencyMs);
  }
}
