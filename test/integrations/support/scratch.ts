// A project outside the workspace, as a user's: every publishable workspace package packed with
// `npm pack` and installed from its tarball. Installing never touches the registry: the tarballs
// carry each other's dependencies, peers are not auto-installed (--legacy-peer-deps), and the few
// extras a quick start needs (NestJS, opossum, cockatiel) come from the npm cache `npm ci` filled,
// at the versions the workspace pins.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  workspaces?: string[];
}

export const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;

/** The workspace folders whose package is publishable (not private). */
export function publishableWorkspaces(): string[] {
  return (manifest('.').workspaces ?? []).filter((dir) => manifest(dir).private !== true);
}

/** The version the workspace pins for a package it depends on (for installing it beside the tarballs). */
export function pinned(name: string): string {
  const root = manifest('.');
  const version = root.dependencies?.[name] ?? root.devDependencies?.[name];
  if (version === undefined) throw new Error(`the workspace does not pin ${name}`);
  return `${name}@${version}`;
}

export interface ScratchProject {
  dir: string;
  tarballs: string[];
  /** node with the project as cwd */
  node(args: string[], env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }>;
  remove(): void;
}

export async function scratchProject(extras: string[] = []): Promise<ScratchProject> {
  const workspaces = publishableWorkspaces();
  for (const dir of workspaces) {
    const main = manifest(dir).main ?? './dist/index.js';
    if (!existsSync(join(ROOT, dir, main)))
      throw new Error(`${dir} is not built (${main} is missing): run npm run build first`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'recloser-scratch-'));
  const packs = join(dir, 'packs');
  mkdirSync(packs);
  await run('npm', ['pack', '--pack-destination', packs, ...workspaces.flatMap((w) => ['-w', w])], {
    cwd: ROOT,
  }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const tarballs = readdirSync(packs)
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => join(packs, f));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true }, null, 2));
  const install = ['install', '--no-audit', '--no-fund', '--legacy-peer-deps', ...tarballs, ...extras];
  try {
    await run('npm', [...install, '--offline'], { cwd: dir });
  } catch {
    // a cold npm cache: let npm fetch what it lacks
    await run('npm', [...install, '--prefer-offline'], { cwd: dir });
  }
  return {
    dir,
    tarballs,
    node: (args, env = process.env) => run(process.execPath, args, { cwd: dir, env }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
