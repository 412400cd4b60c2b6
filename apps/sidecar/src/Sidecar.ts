// The proxy: one Recloser for the worker beside it, one breaker per configured dependency.
// `/<dependency>/<path>` is forwarded to the dependency's upstream through breaker.execute(), so
// admission (local breaker, pause, probe token, ramp allowance) and classification are the SDK's;
// a refusal becomes a 503 with Retry-After and never reaches the upstream.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRecloser, isBreakerOpenError, type Breaker, type Recloser } from '@recloser/client';
import type { SidecarConfig, UpstreamConfig } from './config.js';
import { agentFor, forward, type UpstreamAgent, type UpstreamAnswer } from './forward.js';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);
/** the upstream's bytes pass through as they came: its length and encoding headers still hold */
const RESPONSE_DROP = new Set([...HOP_BY_HOP].filter((h) => h !== 'content-length'));
const CLASS_HEADER = 'x-recloser-class';
const DEFAULT_TIMEOUT_MS = 30_000;

export interface SidecarOptions {
  /** a Recloser of your own (its transport, its clock); default: one from `config.controller` */
  recloser?: Recloser;
}

interface Route {
  config: UpstreamConfig;
  breaker: Breaker;
  agent: UpstreamAgent;
}

export class Sidecar {
  readonly recloser: Recloser;
  private readonly routes = new Map<string, Route>();
  private readonly server: Server;
  private readonly ownsRecloser: boolean;

  constructor(
    readonly config: SidecarConfig,
    options: SidecarOptions = {},
  ) {
    this.ownsRecloser = options.recloser === undefined;
    this.recloser =
      options.recloser ??
      createRecloser({
        url: config.controller.url,
        key: config.controller.key,
        instanceId: config.instanceId,
        group: config.group,
        region: config.region,
        ...(config.controller.requestTimeoutMs === undefined
          ? {}
          : { requestTimeoutMs: config.controller.requestTimeoutMs }),
      });
    for (const [dependency, upstream] of Object.entries(config.dependencies)) {
      const breaker = this.recloser.breaker(dependency, {
        ...(upstream.trafficClass === undefined ? {} : { defaultClass: upstream.trafficClass }),
        ...(upstream.slowThresholdMs === undefined ? {} : { slowThresholdMs: upstream.slowThresholdMs }),
      });
      this.routes.set(dependency, { config: upstream, breaker, agent: agentFor(upstream.upstream) });
    }
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) reply(res, 500, 'Internal Server Error', { message: String(err) });
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 65_000;
  }

  /** Listens on the configured host and port (0: a free one); resolves with the base URL. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.listen.port, this.config.listen.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.url;
  }

  get url(): string {
    const address = this.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** Stops accepting requests, lets probes in flight finish (shutdownGraceMs), stops heartbeats. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    if (this.ownsRecloser) await this.recloser.close({ graceMs: this.config.shutdownGraceMs });
    this.server.closeAllConnections();
    for (const route of this.routes.values()) route.agent.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const path = raw.startsWith('/') ? raw : '/';
    const slash = path.indexOf('/', 1);
    const query = path.indexOf('?');
    const end = Math.min(slash < 0 ? path.length : slash, query < 0 ? path.length : query);
    let dependency: string;
    try {
      dependency = decodeURIComponent(path.slice(1, end));
    } catch {
      return reply(res, 400, 'Bad Request', {
        message: 'the dependency in the path is not valid percent-encoding',
      });
    }
    if (dependency === '_recloser' && path.slice(end).startsWith('/status')) return this.status(res);
    const route = this.routes.get(dependency);
    if (route === undefined) {
      req.resume();
      return reply(res, 404, 'Not Found', {
        message: `no dependency "${dependency.slice(0, 128)}" is configured; requests go to /<dependency>/<path>`,
      });
    }

    const body = await readBody(req, this.config.maxBodyBytes);
    if (body === 'too_large')
      return reply(res, 413, 'Payload Too Large', {
        message: `the body exceeds ${this.config.maxBodyBytes} bytes`,
      });

    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || name === CLASS_HEADER) continue;
      headers[name] = value;
    }
    if (body.length > 0) headers['content-length'] = String(body.length);
    const classHeader = req.headers[CLASS_HEADER];
    const trafficClass =
      typeof classHeader === 'string' && classHeader !== '' ? classHeader : route.config.trafficClass;

    // the worker hanging up cancels the upstream call (recorded as cancelled, not as a failure)
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const target = new URL(route.config.upstream + path.slice(end));
    const timeoutMs = route.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const method = req.method ?? 'GET';
    let upstream: UpstreamAnswer;
    try {
      upstream = await route.breaker.execute(
        (signal) => forward(route.agent, target, method, headers, body, signal, timeoutMs),
        trafficClass === undefined ? { signal: gone.signal } : { signal: gone.signal, trafficClass },
      );
    } catch (err) {
      if (isBreakerOpenError(err)) {
        res.setHeader('retry-after', String(Math.ceil(err.retryAfterMs / 1000)));
        return reply(res, 503, 'Service Unavailable', {
          message: err.message,
          dependency,
          reason: err.reason,
          retryAfterMs: err.retryAfterMs,
        });
      }
      if (gone.signal.aborted) return void res.destroy();
      const timedOut = (err as { name?: unknown }).name === 'TimeoutError';
      return reply(res, timedOut ? 504 : 502, timedOut ? 'Gateway Timeout' : 'Bad Gateway', {
        message: timedOut
          ? `${dependency} did not answer within ${timeoutMs} ms`
          : `${dependency} could not be reached: ${describe(err)}`,
        dependency,
        reason: timedOut ? 'upstream_timeout' : 'upstream_unreachable',
      });
    }
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.raw)) {
      if (value !== undefined && !RESPONSE_DROP.has(name)) out[name] = value;
    }
    res.writeHead(upstream.status, out);
    upstream.message.on('error', () => res.destroy()).pipe(res);
  }

  private status(res: ServerResponse): void {
    const breakers = [...this.routes].map(([dependency, { breaker }]) => ({
      dependency,
      state: breaker.state,
      global: breaker.globalState,
      local: breaker.localState,
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ instanceId: this.recloser.instanceId, reachable: this.recloser.reachable, breakers }),
    );
  }
}

function reply(res: ServerResponse, statusCode: number, error: string, extra: Record<string, unknown>): void {
  res.writeHead(statusCode, {
    'content-type': 'application/json',
    ...(res.getHeaders() as Record<string, string>),
  });
  res.end(JSON.stringify({ statusCode, error, ...extra }));
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return 'too_large';
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      return 'too_large';
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
