// The default transport: the REST API of docs/api.md over fetch, with the fleet key as Bearer token.
import type { HeartbeatRequest, HeartbeatResponse, ProbeGrant, ProbeResultRequest } from '@recloser/core';
import { parseRetryAfterMs } from '@recloser/core';
import { TransportError } from '../errors/Errors.js';
import type { InstanceKeyRequest, ProbeLeaseRequest, Transport } from './Transport.js';

export interface HttpTransportOptions {
  /** base URL of the controller, e.g. http://127.0.0.1:3000 */
  url: string;
  /** fleet key */
  key: string;
  /** per-request timeout when the caller passes no signal */
  timeoutMs?: number;
  /** injectable for tests and custom agents; defaults to the global fetch */
  fetch?: typeof fetch;
}

export class HttpTransport implements Transport {
  private readonly base: string;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(options: HttpTransportOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.key = options.key;
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.fetchFn = options.fetch ?? fetch;
  }

  heartbeat(req: HeartbeatRequest, signal?: AbortSignal): Promise<HeartbeatResponse> {
    return this.post<HeartbeatResponse>('/v1/heartbeats', req, signal);
  }

  async probeResult(token: string, body: ProbeResultRequest, signal?: AbortSignal): Promise<void> {
    await this.post<unknown>(`/v1/probes/${encodeURIComponent(token)}/result`, body, signal);
  }

  lease(req: ProbeLeaseRequest, signal?: AbortSignal): Promise<ProbeGrant> {
    return this.post<ProbeGrant>('/v1/probes/lease', req, signal);
  }

  registerKey(req: InstanceKeyRequest, signal?: AbortSignal): Promise<{ keyId: string }> {
    return this.post<{ keyId: string }>('/v1/instance-keys', req, signal);
  }

  private async post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await this.fetchFn(this.base + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (cause) {
      throw new TransportError(`POST ${path}: controller unreachable`, null, null, { cause });
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      const retryAfterMs = readRetryAfterMs(res, text);
      throw new TransportError(`POST ${path}: ${res.status} ${errorMessage(text)}`, res.status, retryAfterMs);
    }
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new TransportError(`POST ${path}: the controller answered with invalid JSON`, res.status, null, {
        cause,
      });
    }
  }
}

function readRetryAfterMs(res: Response, text: string): number | null {
  try {
    const body = JSON.parse(text) as { retryAfterMs?: unknown };
    if (typeof body.retryAfterMs === 'number' && body.retryAfterMs >= 0) return body.retryAfterMs;
  } catch {
    // not JSON: fall back to the header
  }
  return parseRetryAfterMs(res.headers.get('retry-after'), Date.now());
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
    if (Array.isArray(body.message)) return body.message.join('; ');
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}
