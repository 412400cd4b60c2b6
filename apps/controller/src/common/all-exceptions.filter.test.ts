import { describe, expect, it } from 'vitest';
import { fastifyClientError } from './all-exceptions.filter.js';

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
