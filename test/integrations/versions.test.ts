// The publishable packages move together: one version across the workspace, and each depends on
// the others at exactly that version (so a set of tarballs always installs as a set).
import { describe, expect, it } from 'vitest';
import { manifest, publishableWorkspaces } from './support/scratch.js';

describe('publishable workspace packages', () => {
  const root = manifest('.');
  const packages = publishableWorkspaces().map((dir) => ({ dir, ...manifest(dir) }));

  it('are the SDK, its core, the NestJS module and the sidecar; the controller stays private', () => {
    expect(packages.map((p) => p.name).sort()).toEqual([
      '@recloser/client',
      '@recloser/core',
      '@recloser/nestjs',
      '@recloser/sidecar',
    ]);
    expect(manifest('apps/controller').private).toBe(true);
  });

  it("share the workspace's version and depend on each other at exactly it", () => {
    const names = new Set(packages.map((p) => p.name));
    for (const p of packages) {
      expect(p.version, p.name).toBe(root.version);
      for (const [dep, range] of Object.entries({ ...p.dependencies, ...p.peerDependencies })) {
        if (dep.startsWith('@recloser/')) {
          expect(names.has(dep), `${p.name} depends on the unpublished ${dep}`).toBe(true);
          expect(range, `${p.name} → ${dep}`).toBe(root.version);
        }
      }
    }
  });
});
