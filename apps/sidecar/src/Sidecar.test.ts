import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { createRecloser, TransportError, type Transport } from '@recloser/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarConfig } from './config.js';
import { Sidecar } from './Sidecar.js';

/** A faked controller that answers every heartbeat with an empty plan: every group CLOSED. */
const fakedClosedPlanController: Transport = {
  heartbeat: async () => ({
    serverTime: new Date().toISOString(),
    heartbeatIntervalMs: 1_000,
    leaseTtlMs: 5_000,
    breakers: [],
  }),
  probeResult: async () => undefined,
  lease: async () => {
    throw new TransportError('faked: no leases', 429, 1_000);
  },
};

let upstream: Server;
let upstreamUrl: string;
let sidecar: Sidecar;
let base: string;
const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url?.endsWith('/busy')) return void res.writeHead(429, { 'retry-after': '3' }).end();
      if (req.url?.endsWith('/hang')) return; // never answers
      if (req.url?.endsWith('/gzip')) {
        const zipped = gzipSync('compressed answer');
        return void res
          .writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(zipped.length) })
          .end(zipped);
      }
      res.writeHead(201, { 'content-type': 'text/plain', 'x-upstream': 'yes' }).end(`echo:${body}`);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const config: SidecarConfig = {
    controller: { url: 'http://127.0.0.1:1', key: 'unused' },
    instanceId: 'w-1',
    group: 'g',
    region: 'r',
    listen: { host: '127.0.0.1', port: 0 },
    dependencies: {
      api: { upstream: `${upstreamUrl}/base` },
      gone: { upstream: 'http://127.0.0.1:1' },
      sleepy: { upstream: `${upstreamUrl}/base`, timeoutMs: 100 },
      files: { upstream: `${upstreamUrl}/base` },
    },
    maxBodyBytes: 64,
    shutdownGraceMs: 0,
  };
  const recloser = createRecloser({
    instanceId: 'w-1',
    group: 'g',
    region: 'r',
    transport: fakedClosedPlanController,
    autoStart: false,
  });
  sidecar = new Sidecar(config, { recloser });
  base = await sidecar.listen();
});

afterAll(async () => {
  await sidecar.close();
  await sidecar.recloser.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

describe('the sidecar proxy', () => {
  it("forwards method, path, query, headers and body to the dependency's upstream, and its answer back", async () => {
    const res = await fetch(`${base}/api/v1/chat?x=1&y=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 't-1', 'x-recloser-class': 'small' },
      body: '{"q":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(await res.text()).toBe('echo:{"q":1}');
    const got = seen.at(-1)!;
    expect(got).toMatchObject({ method: 'POST', url: '/base/v1/chat?x=1&y=2', body: '{"q":1}' });
    expect(got.headers['x-trace']).toBe('t-1');
    expect(got.headers['x-recloser-class']).toBeUndefined(); // the sidecar's own header stays here
  });

  it('passes a 429 and its Retry-After on, then refuses with 503 + Retry-After without calling the upstream', async () => {
    expect((await fetch(`${base}/api/busy`)).status).toBe(429);
    const before = seen.length;
    const refused = await fetch(`${base}/api/anything`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(await refused.json()).toMatchObject({ statusCode: 503, reason: 'retry_after', dependency: 'api' });
    expect(seen.length).toBe(before);
  });

  it('answers 404 for an unknown dependency, 413 for an oversized body, 502 for an unreachable upstream', async () => {
    const unknown = await fetch(`${base}/nope/x`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain('"nope"');
    expect((await fetch(`${base}/gone/x`, { method: 'POST', body: 'x'.repeat(65) })).status).toBe(413);
    const gone = await fetch(`${base}/gone/x`);
    expect(gone.status).toBe(502);
    expect(await gone.json()).toMatchObject({ reason: 'upstream_unreachable', dependency: 'gone' });
  });

  it("passes the upstream's bytes through untouched (a gzip body keeps its encoding and length)", async () => {
    const res = await fetch(`${base}/files/gzip`);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(await res.text()).toBe('compressed answer');
  });

  it('answers 504 when the upstream does not answer in time, counted against it', async () => {
    const res = await fetch(`${base}/sleepy/hang`);
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ reason: 'upstream_timeout', dependency: 'sleepy' });
    const { evidence } = (await sidecar.recloser.tick()).request.breakers.find(
      (b) => b.dependency === 'sleepy',
    )!;
    expect(evidence.attempts).toBe(1);
    expect(evidence.byClass.overload).toBe(1);
  });

  it('answers its breakers on /_recloser/status', async () => {
    const status = (await (await fetch(`${base}/_recloser/status`)).json()) as {
      breakers: { dependency: string }[];
    };
    expect(status.breakers.map((b: { dependency: string }) => b.dependency).sort()).toEqual([
      'api',
      'files',
      'gone',
      'sleepy',
    ]);
  });
});
