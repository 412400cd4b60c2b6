import { HttpException } from '@nestjs/common';
import { httpErrorBody } from '../common/http-error-body.js';

/**
 * 429 (budget exhausted, breaker still cooling down) or 503 (lease store unreachable): the body
 * carries `retryAfterMs`, and AllExceptionsFilter turns `retryAfterSeconds` into Retry-After.
 */
export class RetryLaterException extends HttpException {
  readonly retryAfterSeconds: number;

  constructor(status: 429 | 503, message: string, retryAfterMs: number, extra: Record<string, unknown> = {}) {
    const ms = Math.max(1, Math.ceil(retryAfterMs));
    super(httpErrorBody(status, message, { retryAfterMs: ms, ...extra }), status);
    this.retryAfterSeconds = Math.max(1, Math.ceil(ms / 1000));
  }
}
