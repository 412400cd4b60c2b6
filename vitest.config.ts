import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';

// unit files beside the code that open sockets, use Postgres/Redis or time real intervals
const WITH_SERVICES = [
  'libs/client/src/transport/HttpTransport.test.ts',
  'libs/client/src/adapters/opossum.test.ts',
  'apps/controller/src/**/*.store.test.ts',
  'apps/sidecar/src/**/*.test.ts',
];

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
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        // pure code (core rules, the simulator, in-memory control plane): files run side by side
        test: {
          name: 'unit',
          include: ['libs/**/src/**/*.test.ts', 'apps/**/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...WITH_SERVICES],
          // Vitest's default is one worker fewer than the cores: on a 2-core runner that is one
          maxWorkers: Math.max(2, availableParallelism()),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // end-to-end suites share Postgres and Redis, start servers and measure intervals: they run
        // one file at a time, after the unit files, so nothing else competes for the CPU
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts', ...WITH_SERVICES],
          fileParallelism: false,
          // one worker process for all of them: a fresh process per file re-imported NestJS,
          // TypeORM, BullMQ and OpenTelemetry each time (74 s of a 444 s run; 6 s without).
          // Files stay independent: each boots its own app on its own database, nothing mocks
          // modules, and the suite passes in shuffled order (--sequence.shuffle.files).
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
