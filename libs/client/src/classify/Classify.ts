// Classifiers for what calls return or throw, built on the core's classification table so the
// SDK, the simulator and the controller agree on what counts against a dependency.
import { classifyErrorCode, classifyHttpStatus, parseRetryAfterMs, type Outcome } from '@recloser/core';

/** The part of a fetch Response (or any HTTP client's response) the classifier reads. */
export interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
}

export interface Classified {
  outcome: Outcome;
  /** from a Retry-After header, when there was one */
  retryAfterMs: number | null;
}

export interface ResponseClassifyOptions {
  latencyMs?: number;
  slowThresholdMs?: number;
  /** wall clock for HTTP-date Retry-After values; defaults to Date.now() */
  nowMs?: number;
}

export function isResponseLike(value: unknown): value is ResponseLike {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { status?: unknown; headers?: { get?: unknown } };
  return (
    typeof v.status === 'number' && typeof v.headers === 'object' && typeof v.headers?.get === 'function'
  );
}

export function classifyResponse(res: ResponseLike, opts: ResponseClassifyOptions = {}): Classified {
  const { nowMs, ...httpOpts } = opts;
  const outcome = classifyHttpStatus(res.status, httpOpts);
  const retryAfterMs =
    outcome === 'rate_limited' || outcome === 'overload'
      ? parseRetryAfterMs(res.headers.get('retry-after'), nowMs ?? Date.now())
      : null;
  return { outcome, retryAfterMs };
}

/** HTTP status → outcome (the core's table). */
export const classifyStatus = classifyHttpStatus;

/** Thrown error (AbortError, Node/undici error codes, errors carrying a status) → outcome. */
export const classifyError = classifyErrorCode;
