import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  // SWC keeps decorator metadata, which NestJS dependency injection needs.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // exact matches: '@recloser/client' must not swallow its '@recloser/client/opossum' entry point
    alias: [
      { find: /^@recloser\/core$/, replacement: at('./libs/core/src/index.ts') },
      { find: /^@recloser\/control$/, replacement: at('./libs/control/src/index.ts') },
      { find: /^@recloser\/client$/, replacement: at('./libs/client/src/index.ts') },
      { find: /^@recloser\/client\/opossum$/, replacement: at('./libs/client/src/adapters/opossum.ts') },
      { find: /^@recloser\/client\/cockatiel$/, replacement: at('./libs/client/src/adapters/cockatiel.ts') },
      { find: /^@recloser\/nestjs$/, replacement: at('./libs/nestjs/src/index.ts') },
      { find: /^@recloser\/sidecar$/, replacement: at('./apps/sidecar/src/index.ts') },
      { find: /^@recloser\/migrations$/, replacement: at('./migrations/index.ts') },
    ],
  },
  test: {
    include: ['libs/**/src/**/*.test.ts', 'apps/**/src/**/*.test.ts', 'test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    // end-to-end suites share Postgres and Redis and start servers: run files one at a time
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
