import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The operator dashboard: Preact + uPlot, built into apps/dashboard/dist and served by the
// controller under /dashboard/ (apps/controller/src/dashboard/dashboard-static.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 250 },
});
