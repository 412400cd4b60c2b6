// Branded errors: callers tell "breaker open" from "provider failed" without instanceof, which
// breaks when two copies of the SDK are loaded.

const BREAKER_OPEN = Symbol.for('@recloser/client/BreakerOpenError');
const TRANSPORT = Symbol.for('@recloser/client/TransportError');

/** Why a call was refused without being attempted. */
export type RefusalReason =
  | 'local_open' // this instance's own evidence opened its breaker
  | 'paused' // the group is open or probing and this instance holds no probe token
  | 'not_admitted' // the group is ramping and this traffic class has no allowance (yet)
  | 'rate' // the ramp allowance's rate is used up
  | 'concurrency' // the ramp allowance's concurrency is used up
  | 'retry_after'; // the dependency asked us to wait (429 with Retry-After)

export class BreakerOpenError extends Error {
  readonly [BREAKER_OPEN] = true;
  override readonly name = 'BreakerOpenError';

  constructor(
    readonly dependency: string,
    readonly reason: RefusalReason,
    /** when a new attempt may succeed, in ms from now (a hint, not a promise) */
    readonly retryAfterMs: number,
  ) {
    super(`breaker for "${dependency}" refused the call (${reason}); retry after ${retryAfterMs} ms`);
  }
}

export function isBreakerOpenError(err: unknown): err is BreakerOpenError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[BREAKER_OPEN] === true;
}

/** The controller answered with an error status, or could not be reached. */
export class TransportError extends Error {
  readonly [TRANSPORT] = true;
  override readonly name = 'TransportError';

  constructor(
    message: string,
    /** HTTP status, or null when the controller was not reached */
    readonly status: number | null,
    readonly retryAfterMs: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isTransportError(err: unknown): err is TransportError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[TRANSPORT] === true;
}
