import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  // SWC keeps decorator metadata, which NestJS dependency injection needs.
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    alias: {
      '@recloser/core': at('./libs/core/src/index.ts'),
      '@recloser/control': at('./libs/control/src/index.ts'),
      '@recloser/client': at('./libs/client/src/index.ts'),
      '@recloser/migrations': at('./migrations/index.ts'),
    },
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
