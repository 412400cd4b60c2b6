import { describe, expect, it } from 'vitest';
import { isBlockedAddress, resolveTarget } from './ssrf-guard.js';

describe('SSRF guard', () => {
  it('blocks private, loopback, link-local, mapped and reserved addresses; passes public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      '224.0.0.1',
    ])
      expect(isBlockedAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1'])
      expect(isBlockedAddress(a), a).toBe(false);
    expect(isBlockedAddress('not-an-ip')).toBe(true);
  });

  it('refuses loopback and metadata URLs, and odd schemes or credentials, with the reason', async () => {
    await expect(resolveTarget('http://127.0.0.1:9/x', [])).rejects.toThrow(/RECLOSER_WEBHOOK_ALLOW_HOSTS/);
    await expect(resolveTarget('http://169.254.169.254/latest', ['127.0.0.1'])).rejects.toThrow(/link-local/);
    await expect(resolveTarget('http://[::1]/x', [])).rejects.toThrow(/private/);
    await expect(resolveTarget('http://localhost/x', [])).rejects.toThrow(/private/);
    await expect(resolveTarget('file:///etc/passwd', [])).rejects.toThrow(/http or https/);
    await expect(resolveTarget('http://u:p@example.com/', [])).rejects.toThrow(/credentials/);
    await expect(resolveTarget('nope', [])).rejects.toThrow(/valid URL/);
  });

  it('allows a host the allow-list names, pinned to its address', async () => {
    const t = await resolveTarget('http://127.0.0.1:8080/hook', ['127.0.0.1']);
    expect(t).toMatchObject({ address: '127.0.0.1', family: 4 });
    expect(t.url.port).toBe('8080');
  });
});
