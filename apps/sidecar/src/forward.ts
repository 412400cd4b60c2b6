// One request to an upstream over node:http(s) with a keep-alive agent: the bytes pass through
// untouched (no decompression, the upstream's own length and encoding headers), and the answer is
// ResponseLike, so the SDK classifies it by status and Retry-After as it does a fetch Response.
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ResponseLike } from '@recloser/client';

export interface UpstreamAnswer extends ResponseLike {
  readonly raw: IncomingHttpHeaders;
  readonly message: IncomingMessage;
}

/** The upstream took longer than its timeout: counted as overload (a TimeoutError), unlike an abort. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export type UpstreamAgent = HttpAgent | HttpsAgent;

export function agentFor(upstream: string): UpstreamAgent {
  const options = { keepAlive: true, maxSockets: 256 };
  return upstream.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
}

export function forward(
  agent: UpstreamAgent,
  target: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<UpstreamAnswer> {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(target, { method, headers, agent, ...(signal ? { signal } : {}) }, (message) => {
      const raw = message.headers;
      resolve({
        status: message.statusCode ?? 502,
        headers: {
          get: (name: string) => {
            const v = raw[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
          },
        },
        raw,
        message,
      });
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new UpstreamTimeoutError(`no answer within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(body.length > 0 ? body : undefined);
  });
}
