#!/usr/bin/env node
// recloser-sidecar: see --help (config.ts holds the text).
import { readFileSync } from 'node:fs';
import { ConfigError, HELP, loadConfig } from './config.js';
import { Sidecar } from './Sidecar.js';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (argv.includes('--version')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  process.stdout.write(`${pkg.version}\n`);
  process.exit(0);
}

let sidecar: Sidecar;
try {
  sidecar = new Sidecar(loadConfig(argv, process.env));
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`recloser-sidecar: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
const url = await sidecar.listen().catch((err: unknown) => {
  process.stderr.write(`recloser-sidecar: cannot listen: ${(err as Error).message}\n`);
  process.exit(1);
});
process.stdout.write(
  `recloser-sidecar listening on ${url} (dependencies: ${Object.keys(sidecar.config.dependencies).join(', ')})\n`,
);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void sidecar.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
