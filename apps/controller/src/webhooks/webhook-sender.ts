import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './ssrf-guard.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** what is read of a receiver's answer (then the socket is dropped): nobody needs more */
const MAX_RESPONSE_BYTES = 4096;

/**
 * One POST to a resolved target, connecting to its pinned address (no second DNS answer), no
 * redirects followed, everything within `timeoutMs`. 2xx is delivered; anything else is a failure.
 */
export function sendOnce(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<SendResult> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  const options: RequestOptions = {
    method: 'POST',
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    lookup: pinned,
    signal: AbortSignal.timeout(timeoutMs),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (r: SendResult) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = send(options, (res) => {
      const statusCode = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      const finish = () =>
        done({
          ok: statusCode >= 200 && statusCode < 300,
          statusCode,
          error: statusCode >= 200 && statusCode < 300 ? null : `receiver answered ${statusCode}`,
        });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
    req.on('error', (err) =>
      done({
        ok: false,
        statusCode: null,
        error:
          err.name === 'AbortError' || err.name === 'TimeoutError'
            ? `timed out after ${timeoutMs} ms`
            : err.message,
      }),
    );
    req.end(body);
  });
}
