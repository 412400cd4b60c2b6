import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { httpErrorBody, type HttpErrorBody } from '../common/http-error-body.js';
import { ControllerConfig } from '../config/controller-config.js';
import { MetricsAccess, metricsText } from './metrics-access.js';

/**
 * RECLOSER_METRICS_PORT: /metrics on a port of its own (one a firewall can keep internal), and then
 * not on PORT. Same token rule as the main port; every other path is a 404 in the error shape.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server: Server | null = null;

  constructor(private readonly config: ControllerConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === null) return;
    const access = new MetricsAccess(this.config);
    const server = createServer((req, res) => void this.serve(access, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '0.0.0.0', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.logger.log(`metrics on port ${port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(access: MetricsAccess, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics')
      return sendError(res, httpErrorBody(404, 'only GET /metrics here'));
    const refusal = access.check(req.headers.authorization);
    if (refusal) return sendError(res, refusal);
    try {
      const text = await metricsText();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(text);
    } catch (err) {
      this.logger.error(err instanceof Error ? err.stack : String(err));
      sendError(res, httpErrorBody(500, 'internal error'));
    }
  }
}

function sendError(res: ServerResponse, body: HttpErrorBody): void {
  res
    .writeHead(body.statusCode, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify(body));
}
