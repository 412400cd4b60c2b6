import { BadRequestException } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { bodyProblem } from './input-rules.js';

/** Beyond this, an oversized body is no longer drained but the connection is dropped. */
const DRAIN_AT_MOST_BYTES = 32 * 1024 * 1024;

function clientError(statusCode: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { statusCode, code });
}

/**
 * The API speaks JSON only: bodies up to `limitBytes`, any other content type answered 415. An oversized body is read to its end (and discarded) before the
 * 413 goes out: Fastify's own limit stops reading and the connection closes under a client still
 * writing, which then sees EPIPE instead of the 413. Parsing is Fastify's (prototype-poisoning safe);
 * the parsed body is then held to the edge's input rules (depth, sizes, strings) before any mapping.
 */
export function registerJsonBodyParser(fastify: FastifyInstance, limitBytes: number): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers(); // JSON only: any other body type is a 415
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | null, body?: unknown) => {
      if (settled) return;
      settled = true;
      done(err, body);
    };
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
      else if (chunks.length > 0) chunks.length = 0; // keep draining, stop keeping
      if (size > DRAIN_AT_MOST_BYTES) {
        payload.destroy();
        finish(clientError(413, 'FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large'));
      }
    });
    payload.on('end', () => {
      if (size > limitBytes)
        return finish(clientError(413, 'FST_ERR_CTP_BODY_TOO_LARGE', 'Request body is too large'));
      parse(request, Buffer.concat(chunks).toString('utf8'), (err, body) => {
        if (err) return finish(err);
        const problem = bodyProblem(body);
        finish(problem ? new BadRequestException(problem) : null, body);
      });
    });
    payload.on('error', (err) => finish(err));
  });
}
