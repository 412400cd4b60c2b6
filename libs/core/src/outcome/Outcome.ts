// Failure classification: which results say something about a dependency's health. A malformed
// request (client_error) or a bad credential (auth) says nothing about it; a cancelled call is
// the caller's choice. Only systemic outcomes move a breaker.
import type { Evidence, Outcome } from '../wire.js';

const SYSTEMIC: ReadonlySet<Outcome> = new Set<Outcome>(['overload', 'network', 'slow']);

/** Systemic = the dependency (or the path to it) is unhealthy: overload, network, slow. */
export function isSystemic(outcome: Outcome): boolean {
  return SYSTEMIC.has(outcome);
}

export interface HttpClassifyOptions {
  latencyMs?: number;
  /** a successful answer slower than this is `slow` */
  slowThresholdMs?: number;
}

/**
 * 2xx (and other non-error statuses) → success, or slow beyond the threshold; 429 → rate_limited;
 * 502/503/504/529 → overload; 401/403 → auth; other 4xx → client_error; other 5xx → overload.
 */
export function classifyHttpStatus(status: number, opts: HttpClassifyOptions = {}): Outcome {
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status >= 500) return 'overload';
  if (status >= 400) return 'client_error';
  const { latencyMs, slowThresholdMs } = opts;
  if (latencyMs !== undefined && slowThresholdMs !== undefined && latencyMs > slowThresholdMs) return 'slow';
  return 'success';
}

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

// Programming errors thrown by the caller's own code: they say nothing about the dependency.
const PROGRAMMING_ERRORS: ReadonlySet<string> = new Set([
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  status?: unknown;
  statusCode?: unknown;
  cause?: unknown;
}

function asErrorLike(err: unknown): ErrorLike | null {
  return typeof err === 'object' && err !== null ? (err as ErrorLike) : null;
}

function classifyKnown(e: ErrorLike): Outcome | null {
  if (e.name === 'AbortError' || e.code === 'ABORT_ERR') return 'cancelled';
  if (e.name === 'TimeoutError') return 'overload';
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || e.code.startsWith('UND_ERR_')))
    return 'network';
  // HTTP client libraries attach the response status to the error they throw
  const status =
    typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : null;
  if (status !== null && status >= 400) return classifyHttpStatus(status);
  return null;
}

/**
 * Classifies a thrown error. fetch wraps socket errors (`TypeError: fetch failed` with a `cause`
 * carrying the code), so the cause chain is searched first. Unknown errors count as overload, as
 * in every common breaker library, except plain programming errors (TypeError, RangeError, …),
 * which count as client_error.
 */
export function classifyErrorCode(err: unknown): Outcome {
  let current: unknown = err;
  for (let depth = 0; depth < 5; depth++) {
    const e = asErrorLike(current);
    if (e === null) break;
    const known = classifyKnown(e);
    if (known !== null) return known;
    current = e.cause;
  }
  const top = asErrorLike(err);
  if (top !== null && typeof top.name === 'string' && PROGRAMMING_ERRORS.has(top.name)) return 'client_error';
  return 'overload';
}

/**
 * Retry-After as milliseconds from now: delta-seconds or an HTTP-date (compared with `nowMs`, the
 * caller's wall clock, because the header format leaves no other choice). Null when absent or invalid.
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | null {
  if (header === null || header === undefined) return null;
  const trimmed = header.trim();
  if (trimmed === '') return null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // an HTTP-date always names a month; this keeps Date.parse from reading "-5" as a year
  if (!/[A-Za-z]/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** Evidence with no attempts, for a fresh tick window. */
export function emptyEvidence(): Evidence {
  return {
    attempts: 0,
    successes: 0,
    byClass: { overload: 0, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
    latencyP95Ms: null,
    ttftP95Ms: null,
    queueAgeMs: null,
  };
}
