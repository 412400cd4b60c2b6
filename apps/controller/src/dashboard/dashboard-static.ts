import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** apps/dashboard/dist, from apps/controller/src/dashboard (vitest) and apps/controller/dist/dashboard alike */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
export const DASHBOARD_PATH = '/dashboard/';

/** the built page loads its own scripts and styles only, talks to this origin only, is framed by nobody */
const CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const SECURITY_HEADERS: [string, string][] = [
  ['content-security-policy', CSP],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
];

/**
 * Serves the dashboard's built assets (apps/dashboard, built by `npm run build`) under /dashboard/,
 * and sends / there. Without a build, /dashboard/ says how to make one.
 */
export async function registerDashboard(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/', async (_req, reply) => reply.redirect(DASHBOARD_PATH, 302));
  fastify.get('/dashboard', async (_req, reply) => reply.redirect(DASHBOARD_PATH, 302));
  if (!existsSync(`${DASHBOARD_DIST}index.html`)) {
    fastify.get(DASHBOARD_PATH, async (_req, reply) => {
      for (const [n, v] of SECURITY_HEADERS) void reply.header(n, v);
      return reply
        .status(503)
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>Recloser</title><p>The dashboard is not built: run <code>npm run build</code>.</p>',
        );
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: DASHBOARD_DIST,
    prefix: DASHBOARD_PATH,
    decorateReply: false,
    index: ['index.html'],
    wildcard: true,
    setHeaders: (res, path) => {
      for (const [n, v] of SECURITY_HEADERS) void res.header(n, v);
      // hashed asset names never change content; the page itself is always fetched afresh
      void res.header(
        'cache-control',
        path.endsWith('.html') ? 'no-store' : 'public, max-age=31536000, immutable',
      );
    },
  });
}
