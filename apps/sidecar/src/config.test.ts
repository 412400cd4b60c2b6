import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const ENV = {
  RECLOSER_URL: 'http://controller:3000',
  RECLOSER_FLEET_KEY: 'key-1',
  RECLOSER_GROUP: 'orders',
  RECLOSER_UPSTREAMS: 'llm=https://api.example.com/,pay=http://10.0.0.5:8080',
};

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sidecar-config-')), 'sidecar.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('no ConfigError');
};

describe('sidecar configuration', () => {
  it('comes from the environment alone, with defaults for the rest', () => {
    const c = loadConfig([], { ...ENV, RECLOSER_INSTANCE_ID: 'w-17' });
    expect(c).toMatchObject({
      controller: { url: 'http://controller:3000', key: 'key-1' },
      instanceId: 'w-17',
      group: 'orders',
      region: 'default',
      listen: { host: '127.0.0.1', port: 7070 },
      dependencies: {
        llm: { upstream: 'https://api.example.com' },
        pay: { upstream: 'http://10.0.0.5:8080' },
      },
    });
  });

  it('reads a file, and the environment and flags override it', () => {
    const path = file({
      controller: { url: 'http://from-file:3000', key: 'file-key' },
      group: 'file-group',
      region: 'eu-west',
      instanceId: 'file-instance',
      listen: { port: 9000 },
      dependencies: { llm: { upstream: 'http://file-llm', trafficClass: 'long_context', timeoutMs: 1000 } },
    });
    const c = loadConfig(['--config', path, '--port=0'], { RECLOSER_GROUP: 'env-group' });
    expect(c.controller).toEqual({ url: 'http://from-file:3000', key: 'file-key' });
    expect(c.group).toBe('env-group');
    expect(c.region).toBe('eu-west');
    expect(c.listen.port).toBe(0);
    expect(c.dependencies.llm).toEqual({
      upstream: 'http://file-llm',
      trafficClass: 'long_context',
      timeoutMs: 1000,
    });
    // RECLOSER_UPSTREAMS replaces a file dependency's upstream and keeps its other settings
    const env = loadConfig(['--config', path], { RECLOSER_UPSTREAMS: 'llm=http://env-llm' });
    expect(env.dependencies.llm).toMatchObject({ upstream: 'http://env-llm', trafficClass: 'long_context' });
  });

  it('names the field or variable that is wrong', () => {
    expect(errorOf(() => loadConfig([], { ...ENV, RECLOSER_URL: 'ftp://x' }))).toContain('RECLOSER_URL');
    expect(errorOf(() => loadConfig([], { ...ENV, RECLOSER_GROUP: '' }))).toContain('group');
    expect(errorOf(() => loadConfig([], { ...ENV, RECLOSER_SIDECAR_PORT: '70000' }))).toContain(
      'RECLOSER_SIDECAR_PORT',
    );
    expect(errorOf(() => loadConfig([], { ...ENV, RECLOSER_UPSTREAMS: 'nourl' }))).toContain(
      'RECLOSER_UPSTREAMS',
    );
    expect(errorOf(() => loadConfig([], { ...ENV, RECLOSER_UPSTREAMS: undefined }))).toContain(
      'no dependency',
    );
    expect(errorOf(() => loadConfig(['--config', file('{not json')], ENV))).toContain('not JSON');
    expect(errorOf(() => loadConfig(['--config', file({ dependencies: { a: {} } })], ENV))).toContain(
      'dependencies.a.upstream',
    );
    expect(errorOf(() => loadConfig(['--bogus'], ENV))).toContain('--bogus');
  });
});
