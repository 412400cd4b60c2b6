// What a use case refuses, by kind, so each home can answer in its own terms: the controller maps
// kinds to HTTP statuses (bad_input 400, not_found 404, conflict 409, retry_later 429,
// unavailable 503), the simulator's transport to TransportErrors with the same statuses.
const BRAND = Symbol.for('recloser.ControlError');

export type ControlErrorKind = 'bad_input' | 'not_found' | 'conflict' | 'retry_later' | 'unavailable';

export const CONTROL_ERROR_STATUS: Record<ControlErrorKind, number> = {
  bad_input: 400,
  not_found: 404,
  conflict: 409,
  retry_later: 429,
  unavailable: 503,
};

export class ControlError extends Error {
  override readonly name = 'ControlError';
  readonly [BRAND] = true;
  /** retry_later and unavailable: when to ask again (ms) */
  readonly retryAfterMs: number | undefined;
  /** extra fields for the error body (e.g. { state: 'open' }) */
  readonly extra: Record<string, unknown>;

  constructor(
    readonly kind: ControlErrorKind,
    message: string,
    opts: { retryAfterMs?: number; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.retryAfterMs = opts.retryAfterMs;
    this.extra = opts.extra ?? {};
  }

  get status(): number {
    return CONTROL_ERROR_STATUS[this.kind];
  }
}

export function isControlError(err: unknown): err is ControlError {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[BRAND] === true;
}
