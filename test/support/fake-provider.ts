// A loopback HTTP "provider" for end-to-end tests: it can be up, down (refusing with 503), or
// serving only part of its capacity (calls beyond a per-second budget get 503), and it counts
// every call it receives, per instance and per second of its own clock.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProviderMode = { kind: 'up' } | { kind: 'down' } | { kind: 'partial'; capacityPerSec: number };

export interface ProviderCall {
  at: number;
  instanceId: string;
  status: number;
}

export interface FakeProvider {
  readonly url: string;
  setMode(mode: ProviderMode): void;
  /** every call received, in arrival order */
  readonly calls: ProviderCall[];
  callsSince(t: number, instanceIds?: ReadonlySet<string>): ProviderCall[];
  /** the largest number of calls received in any 1 s window starting at or after `from` */
  peakPerSecond(from: number, to?: number): number;
  close(): Promise<void>;
}

export async function startFakeProvider(initial: ProviderMode = { kind: 'up' }): Promise<FakeProvider> {
  let mode = initial;
  const calls: ProviderCall[] = [];
  let windowStart = 0;
  let servedInWindow = 0;

  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const now = Date.now();
    const instanceId = String(req.headers['x-instance-id'] ?? 'unknown');
    let status = 200;
    if (mode.kind === 'down') status = 503;
    else if (mode.kind === 'partial') {
      if (now - windowStart >= 1000) {
        windowStart = now;
        servedInWindow = 0;
      }
      status = servedInWindow < mode.capacityPerSec ? 200 : 503;
      if (status === 200) servedInWindow++;
    }
    calls.push({ at: now, instanceId, status });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? '{"ok":true}' : '{"error":"overloaded"}');
  };

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setMode(next) {
      mode = next;
      windowStart = 0;
    },
    callsSince(t, instanceIds) {
      return calls.filter((c) => c.at >= t && (!instanceIds || instanceIds.has(c.instanceId)));
    },
    peakPerSecond(from, to = Number.POSITIVE_INFINITY) {
      const times = calls.filter((c) => c.at >= from && c.at <= to).map((c) => c.at);
      let peak = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i]! - times[j]! >= 1000) j++;
        peak = Math.max(peak, i - j + 1);
      }
      return peak;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
