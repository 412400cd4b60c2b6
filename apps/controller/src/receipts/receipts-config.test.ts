import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOG_ORIGIN, readReceiptsConfig } from './receipts-config.js';

const pem = (type: 'ed25519' | 'x25519') =>
  generateKeyPairSync(type as 'ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();

describe('readReceiptsConfig', () => {
  it('defaults: no key configured (one is generated and kept in Postgres), the default origin', () => {
    expect(readReceiptsConfig({})).toEqual({ origin: DEFAULT_LOG_ORIGIN, signingKey: null });
  });

  it('reads an Ed25519 key from the environment or a file', () => {
    expect(readReceiptsConfig({ RECLOSER_SIGNING_KEY: pem('ed25519') }).signingKey?.asymmetricKeyType).toBe(
      'ed25519',
    );
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'k.pem');
    writeFileSync(file, pem('ed25519'));
    expect(readReceiptsConfig({ RECLOSER_SIGNING_KEY_FILE: file }).signingKey?.asymmetricKeyType).toBe(
      'ed25519',
    );
  });

  it('stops the boot naming the variable and the reason', () => {
    expect(() => readReceiptsConfig({ RECLOSER_SIGNING_KEY: 'nope' })).toThrow(
      'RECLOSER_SIGNING_KEY is not a PEM private key',
    );
    expect(() => readReceiptsConfig({ RECLOSER_SIGNING_KEY: pem('x25519') })).toThrow(
      /must be an Ed25519 key \(got x25519\)/,
    );
    expect(() => readReceiptsConfig({ RECLOSER_SIGNING_KEY_FILE: '/nonexistent/k.pem' })).toThrow(
      /RECLOSER_SIGNING_KEY_FILE: cannot read/,
    );
    expect(() => readReceiptsConfig({ RECLOSER_SIGNING_KEY: 'a', RECLOSER_SIGNING_KEY_FILE: 'b' })).toThrow(
      /both set/,
    );
    expect(() => readReceiptsConfig({ RECLOSER_LOG_ORIGIN: 'has space' })).toThrow(/RECLOSER_LOG_ORIGIN/);
  });
});
