import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (docs/api.md). */
export const SIGNATURE_HEADER = 'x-recloser-signature';
export const EVENT_ID_HEADER = 'x-recloser-event-id';
export const EVENT_TYPE_HEADER = 'x-recloser-event';

/** The signature header's value for `body` sent at `timestampSec`. */
export function signatureHeader(secret: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampSec}.${body}`).digest('hex');
  return `t=${timestampSec},v1=${mac}`;
}

/**
 * A receiver's check (the snippet in docs/api.md does the same): the header parses, its time is
 * within `toleranceSec` of `nowSec` (replays of old deliveries are refused), the MAC matches.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  body: string,
  nowSec: number,
  toleranceSec = 300,
): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSec - t) > toleranceSec) return false;
  const expected = Buffer.from(signatureHeader(secret, t, body).slice(`t=${t},v1=`.length), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}
