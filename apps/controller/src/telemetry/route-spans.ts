import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { tracesWanted } from './telemetry.js';

/**
 * The HTTP instrumentation's server span knows the URL, not the route: this names it after the route
 * Fastify matched (`POST /v1/heartbeats`, bounded: templates, never raw URLs) and sets `http.route`,
 * as a Fastify instrumentation would (the contrib one is deprecated and outside this SDK's line).
 */
@Injectable()
export class RouteSpans implements OnModuleInit {
  constructor(private readonly http: HttpAdapterHost) {}

  onModuleInit(): void {
    if (!tracesWanted()) return; // no spans to name: not even a hook on the request path
    this.http.httpAdapter?.getInstance<FastifyInstance>().addHook('onRequest', async (request) => {
      const route = request.routeOptions.url;
      const span = trace.getActiveSpan();
      if (span && route) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
    });
  }
}
