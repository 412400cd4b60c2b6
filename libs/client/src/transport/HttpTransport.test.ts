import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HeartbeatRequest, HeartbeatResponse } from '@recloser/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isTransportError } from '../errors/Errors.js';
import { createRecloser, type RecloserOptions } from '../Recloser.js';
import { HttpTransport } from './HttpTransport.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

/** The SDK client of instance `w` in group `g`, talking to `url`. */
const workerAt = (url: string, options: Partial<RecloserOptions> = {}) =>
  createRecloser({ url, key: 'k', instanceId: 'w', group: 'g', region: 'r', ...options });

/** A loopback HTTP server standing in for the controller; `answer` decides each response. */
let server: Server;
let base: string;
let seen: Seen[];
let answer: (req: Seen, res: ServerResponse) => void;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function plan(state: 'closed' | 'open' | 'probing', probeToken: string | null): HeartbeatResponse {
  return {
    serverTime: new Date().toISOString(),
    heartbeatIntervalMs: 750,
    leaseTtlMs: 5_000,
    breakers: [
      {
        dependency: 'llm-provider',
        breakerId: 'brk-1',
        global: { state, epoch: 3, step: null, steps: 6, quorum: { open: 12, live: 20, threshold: 10 } },
        allowance: null,
        probe: probeToken === null ? null : { token: probeToken, fencing: 41, validForMs: 60_000 },
        fallback: null,
      },
    ],
  };
}

beforeEach(async () => {
  seen = [];
  answer = (_req, res) => json(res, 404, { statusCode: 404, error: 'Not Found', message: 'no route' });
  server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: text === '' ? null : JSON.parse(text),
      };
      seen.push(s);
      answer(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('SDK over real HTTP against a loopback server', () => {
  it('posts the heartbeat body of docs/api.md with the Bearer key, and applies the plan (pause, then the probe)', async () => {
    let round = 0;
    answer = (req, res) => {
      if (req.url === '/v1/heartbeats') {
        round += 1;
        json(res, 200, round === 1 ? plan('open', null) : plan('probing', 'tok-xyz'));
      } else if (req.url === '/v1/probes/tok-xyz/result') json(res, 200, { ok: true });
      else json(res, 404, { message: 'no route' });
    };
    const recloser = createRecloser({
      url: base + '/',
      key: 'fleet-key-123',
      instanceId: 'worker-17',
      group: 'orders-consumer',
      region: 'eu-west',
      autoStart: false,
    });
    const llm = recloser.breaker('llm-provider');
    await llm.execute(async () => new Response('', { status: 503 }));
    const first = await recloser.tick();
    expect(first.reachable).toBe(true);

    const hb = seen[0]!;
    expect(hb).toMatchObject({
      method: 'POST',
      url: '/v1/heartbeats',
      authorization: 'Bearer fleet-key-123',
      contentType: 'application/json',
    });
    const body = hb.body as HeartbeatRequest;
    expect(Object.keys(body).sort()).toEqual(['breakers', 'group', 'instanceId', 'region']);
    expect(body).toMatchObject({ instanceId: 'worker-17', group: 'orders-consumer', region: 'eu-west' });
    expect(body.breakers).toHaveLength(1);
    const verdict = body.breakers[0]!;
    expect(verdict.dependency).toBe('llm-provider');
    expect(verdict.state).toBe('closed');
    expect(verdict.evidence).toEqual({
      attempts: 1,
      successes: 0,
      byClass: { overload: 1, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
      latencyP95Ms: expect.any(Number),
      ttftP95Ms: null,
      queueAgeMs: null,
    });
    expect(verdict.demand!['standard']).toBeGreaterThan(0);

    // plan 1: the group is open and we hold no token: zero attempts
    expect(llm.state).toBe('paused');
    expect(recloser.heartbeatIntervalMs).toBe(750);
    let calls = 0;
    await llm.execute(async () => ++calls).catch(() => undefined);
    expect(calls).toBe(0);

    // plan 2: a probe token: exactly the next call goes, and its outcome is posted to the token
    await recloser.tick();
    await llm.execute(async () => ++calls);
    await llm.execute(async () => ++calls).catch(() => undefined);
    expect(calls).toBe(1);
    await recloser.flush();
    const probe = seen.find((s) => s.url === '/v1/probes/tok-xyz/result')!;
    expect(probe.authorization).toBe('Bearer fleet-key-123');
    expect(probe.body).toEqual({ outcome: 'success', latencyMs: expect.any(Number) });
    await recloser.close();
  });

  it('turns a 401 and a 429 into TransportErrors with the status, message and retryAfterMs', async () => {
    const transport = new HttpTransport({ url: base, key: 'bad' });
    answer = (req, res) =>
      req.url === '/v1/heartbeats'
        ? json(res, 401, { statusCode: 401, error: 'Unauthorized', message: 'unknown fleet key' })
        : json(
            res,
            429,
            { statusCode: 429, message: 'probe budget exhausted', retryAfterMs: 1_500 },
            { 'retry-after': '2' },
          );
    const hb = await transport
      .heartbeat({ instanceId: 'i', group: 'g', region: 'r', breakers: [] })
      .catch((e: unknown) => e);
    expect(isTransportError(hb)).toBe(true);
    expect(hb).toMatchObject({ status: 401, message: expect.stringContaining('unknown fleet key') });
    const lease = await transport
      .lease({ instanceId: 'i', group: 'g', dependency: 'd' })
      .catch((e: unknown) => e);
    expect(lease).toMatchObject({ status: 429, retryAfterMs: 1_500 });
  });

  it('falls back when the controller hangs past the request timeout, and recovers when it answers', async () => {
    let hang = true;
    answer = (_req, res) => {
      if (!hang) json(res, 200, plan('closed', null));
      // else: never answer
    };
    const recloser = workerAt(base, { requestTimeoutMs: 200, autoStart: false });
    const llm = recloser.breaker('llm-provider');
    const reach: boolean[] = [];
    recloser.onFallback((e) => reach.push(e.reachable));
    const r1 = await recloser.tick();
    expect(r1.reachable).toBe(false);
    expect(llm.state).toBe('fallback');
    expect(llm.allow()).toBe(true); // local breaking goes on
    hang = false;
    const r2 = await recloser.tick();
    expect(r2.reachable).toBe(true);
    expect(llm.state).toBe('closed');
    expect(reach).toEqual([false, true]);
    await recloser.close();
  });

  it('falls back when nothing listens on the port', async () => {
    const closedPort = base;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const recloser = workerAt(closedPort, { autoStart: false });
    const result = await recloser.tick();
    expect(result.reachable).toBe(false);
    expect(isTransportError(result.error)).toBe(true);
    expect(result.error).toMatchObject({ status: null });
    await recloser.close();
  });

  it('the built-in ticker heartbeats on its own until close()', async () => {
    answer = (_req, res) => json(res, 200, { ...plan('closed', null), heartbeatIntervalMs: 20 });
    const recloser = workerAt(base, { heartbeatIntervalMs: 20 });
    recloser.breaker('llm-provider');
    await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(3), { timeout: 5_000 });
    await recloser.close();
    // a beat aborted by close() may still reach the server; after that, silence for many intervals
    await new Promise((resolve) => setTimeout(resolve, 150));
    const settled = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.length).toBe(settled);
  });
});
