import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ControllerConfig } from '../config/controller-config.js';
import { MetricsAccess } from './metrics-access.js';

/** /metrics on the main port: a bearer token unless RECLOSER_METRICS_PUBLIC=true (MetricsAccess). */
@Injectable()
export class MetricsGuard implements CanActivate {
  private readonly access: MetricsAccess;

  constructor(config: ControllerConfig) {
    this.access = new MetricsAccess(config);
  }

  canActivate(context: ExecutionContext): boolean {
    const refusal = this.access.check(
      context.switchToHttp().getRequest<FastifyRequest>().headers.authorization,
    );
    if (refusal) throw new UnauthorizedException(refusal.message);
    return true;
  }
}
