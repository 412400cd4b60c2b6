import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { isControlError, type ControlError } from '@recloser/control';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { httpErrorBody, type HttpErrorBody } from './http-error-body.js';

const BODY_TOO_LARGE = 'request body is larger than the 1 MiB limit';
const NOT_JSON = 'the body must be JSON (content-type: application/json)';

/** Maps Fastify's own client errors (bad JSON, body too large, wrong content type) to their status. */
export function fastifyClientError(err: unknown): HttpErrorBody | null {
  const e = err as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || !e.code.startsWith('FST_')) return null;
  const status =
    typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500 ? e.statusCode : null;
  if (status === null) return null;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return httpErrorBody(413, BODY_TOO_LARGE);
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return httpErrorBody(415, NOT_JSON);
  if (e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/i.test(String(e.message)))
    return httpErrorBody(400, `body is not valid JSON: ${String(e.message)}`);
  return httpErrorBody(status, String(e.message));
}

/**
 * Fastify's router answers a path parameter over maxParamLength (414) or a malformed URL (400)
 * itself, echoing the URL in its own shape; through `frameworkErrors` they get ours, URL left out.
 */
export function frameworkErrorBody(err: FastifyError): HttpErrorBody {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return httpErrorBody(414, 'a path segment of the URL is too long');
  if (err.code === 'FST_ERR_BAD_URL') return httpErrorBody(400, 'the URL is not valid');
  return httpErrorBody(500, 'internal error');
}

/** No route matched: the method only, never the URL, which may be long or hostile. */
export const notFoundBody = (method: string): HttpErrorBody =>
  httpErrorBody(404, `no route for ${method} at this path (see /docs for the API)`);

const STORE_RETRY_AFTER_SECONDS = 1;
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// Postgres: connection exceptions (08…), shutdown and crash (57P01-57P03), too many connections (53300)
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
const DRIVER_UNAVAILABLE =
  /Connection terminated|Connection is closed|timeout exceeded when trying to connect|Driver not Connected|MaxRetriesPerRequest|Reached the max retries/i;

// ioredis giving up on a command; the probe lease store losing its data again and again mid-grant
const STORE_UNAVAILABLE_ERRORS = new Set(['MaxRetriesPerRequestError', 'LeaseStoreUnavailableError']);

/** Postgres or Redis did not answer: docs/api.md says 503 with Retry-After, so clients fall back instead of waiting. */
export function storeUnavailable(err: unknown): HttpErrorBody | null {
  const e = err as { code?: unknown; message?: unknown; name?: unknown; driverError?: unknown };
  if (!e || typeof e !== 'object') return null;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const unavailable =
    CONNECTION_CODES.has(code) ||
    PG_UNAVAILABLE.test(code) ||
    DRIVER_UNAVAILABLE.test(message) ||
    STORE_UNAVAILABLE_ERRORS.has(typeof e.name === 'string' ? e.name : '');
  if (unavailable) {
    return httpErrorBody(503, 'the store (Postgres or Redis) is unavailable; retry shortly', {
      retryAfterMs: STORE_RETRY_AFTER_SECONDS * 1000,
    });
  }
  return e.driverError ? storeUnavailable(e.driverError) : null;
}

/** Every error leaves as docs/api.md's JSON; anything unexpected is logged and becomes a plain 500. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger(AllExceptionsFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest | undefined>();
    // Fastify's not-found handler (Nest's says "Cannot GET <url>")
    const body = request?.is404 ? notFoundBody(request.method) : this.toBody(exception);
    if (body.statusCode === 503) this.logger.warn(`store unavailable: ${(exception as Error)?.message}`);
    else if (body.statusCode >= 500)
      this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    // 429 and 503 say when to ask again, in seconds (the body has it in ms)
    if (typeof body.retryAfterMs === 'number')
      void reply.header('retry-after', String(Math.max(1, Math.ceil(body.retryAfterMs / 1000))));
    void reply.status(body.statusCode).send(body);
  }

  private toBody(exception: unknown): HttpErrorBody {
    if (isControlError(exception)) return controlErrorBody(exception);
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 413) return httpErrorBody(413, BODY_TOO_LARGE);
      if (status === 415) return httpErrorBody(415, NOT_JSON);
      const response = exception.getResponse();
      if (typeof response === 'string') return httpErrorBody(status, response);
      const r = response as Record<string, unknown>;
      const message = Array.isArray(r.message)
        ? r.message.join('; ')
        : String(r.message ?? exception.message);
      const { statusCode: _s, error: _e, message: _m, ...extra } = r;
      return httpErrorBody(status, message, extra);
    }
    return (
      fastifyClientError(exception) ?? storeUnavailable(exception) ?? httpErrorBody(500, 'internal error')
    );
  }
}

/** A control layer refusal: its kind's status; a retry_later/unavailable one carries retryAfterMs (and Retry-After). */
export function controlErrorBody(err: ControlError): HttpErrorBody {
  const retry =
    err.retryAfterMs === undefined ? {} : { retryAfterMs: Math.max(1, Math.ceil(err.retryAfterMs)) };
  return httpErrorBody(err.status, err.message, { ...retry, ...err.extra });
}
