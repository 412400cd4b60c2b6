import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses a webhook may not reach unless its host is allow-listed: private, loopback, link-local, … */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 (IPv4-mapped ::ffff:a.b.c.d is checked against the v4 rules by BlockList)
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class WebhookTargetError extends Error {
  override readonly name = 'WebhookTargetError';
}

export interface ResolvedTarget {
  url: URL;
  /** the address to connect to: checked once, then pinned, so a DNS answer cannot change in between */
  address: string;
  family: 4 | 6;
}

const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[|\]$/g, '');

/**
 * Parses and resolves a webhook URL: http(s) only, no credentials in it, and every address the host
 * resolves to must be public, unless the host is named in `allowHosts` (RECLOSER_WEBHOOK_ALLOW_HOSTS).
 * Throws WebhookTargetError saying why.
 */
export async function resolveTarget(raw: string, allowHosts: readonly string[]): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebhookTargetError('url must be http or https');
  if (url.username || url.password) throw new WebhookTargetError('url must not carry credentials');
  const host = hostOf(url);
  const allowed = allowHosts.some((h) => h.toLowerCase().replace(/^\[|\]$/g, '') === host);
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new WebhookTargetError(`url host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} does not resolve`);
  if (!allowed) {
    const blocked = addresses.find((a) => isBlockedAddress(a.address));
    if (blocked)
      throw new WebhookTargetError(
        `url host ${host} resolves to a private, loopback or link-local address (${blocked.address}); ` +
          'name it in RECLOSER_WEBHOOK_ALLOW_HOSTS to allow it',
      );
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
