import { describe, expect, it } from 'vitest';
import { LeaseStoreUnavailableError } from '../probes/probe-lease.store.js';
import { fastifyClientError, storeUnavailable } from './all-exceptions.filter.js';

describe('fastifyClientError', () => {
  it('maps Fastify body errors to their 4xx in the API error shape', () => {
    expect(fastifyClientError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413, message: 'x' })).toEqual(
      {
        statusCode: 413,
        error: 'Payload Too Large',
        message: 'request body is larger than the 1 MiB limit',
      },
    );
    expect(
      fastifyClientError({
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        statusCode: 400,
        message: 'Unexpected end of JSON',
      }),
    ).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringMatching(/not valid JSON/),
    });
    expect(
      fastifyClientError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415, message: 'nope' }),
    ).toMatchObject({ statusCode: 415, error: 'Unsupported Media Type' });
  });

  it('leaves anything else to the 500 path', () => {
    expect(fastifyClientError(new Error('boom'))).toBeNull();
    expect(fastifyClientError({ code: 'FST_SOMETHING', statusCode: 500, message: 'x' })).toBeNull();
    expect(fastifyClientError(null)).toBeNull();
  });
});

describe('storeUnavailable', () => {
  it('turns lost Postgres or Redis connections into 503 with retryAfterMs', () => {
    const unavailable = { statusCode: 503, error: 'Service Unavailable', retryAfterMs: 1000 };
    expect(
      storeUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toMatchObject(unavailable);
    expect(
      storeUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' })),
    ).toMatchObject(unavailable);
    expect(storeUnavailable(new Error('Connection terminated unexpectedly'))).toMatchObject(unavailable);
    expect(
      storeUnavailable({ message: 'query failed', driverError: { code: '08006', message: 'x' } }),
    ).toMatchObject(unavailable);
    expect(storeUnavailable(new LeaseStoreUnavailableError('kept losing its data'))).toMatchObject(
      unavailable,
    );
  });

  it('leaves real bugs and constraint errors alone', () => {
    expect(storeUnavailable(new TypeError('x is undefined'))).toBeNull();
    expect(storeUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeNull();
  });
});
