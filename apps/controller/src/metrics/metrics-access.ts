import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../auth/bearer-token.js';
import type { ControllerConfig } from '../config/controller-config.js';
import { httpErrorBody, type HttpErrorBody } from '../common/http-error-body.js';
import { prometheusText } from '../telemetry/telemetry.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Who may scrape /metrics: anyone with RECLOSER_METRICS_PUBLIC=true, else the bearer of
 * RECLOSER_METRICS_TOKEN, or of the admin token when that is unset. Shared by the main port's
 * guard and the separate metrics port.
 */
export class MetricsAccess {
  private readonly expected: Buffer | null;
  readonly isPublic: boolean;

  constructor(config: ControllerConfig) {
    this.isPublic = config.metricsPublic;
    const token = config.metricsToken ?? config.adminToken;
    this.expected = token ? digest(token) : null;
  }

  /** null when allowed, else the 401 to answer */
  check(authorization: string | string[] | undefined): HttpErrorBody | null {
    if (this.isPublic) return null;
    const token = bearerToken(authorization);
    if (!token) return httpErrorBody(401, 'missing metrics token (Authorization: Bearer <token>)');
    // digests: a constant-time comparison whatever the lengths
    if (!this.expected || !timingSafeEqual(digest(token), this.expected))
      return httpErrorBody(401, 'metrics token is not valid');
    return null;
  }
}

/** The Prometheus text both ports serve. */
export async function metricsText(): Promise<string> {
  return (await prometheusText()) ?? '# telemetry is not started in this process\n';
}
