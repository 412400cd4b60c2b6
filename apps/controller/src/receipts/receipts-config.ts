// The receipts' settings, read from the environment and checked at boot (a bad value stops the
// process naming the variable): the controller's signing key (PEM, PKCS#8 Ed25519) from a file or
// the environment, and the log's origin line.
import { readFileSync } from 'node:fs';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { StartupError } from '../common/startup-error.js';

export interface ReceiptsConfig {
  /** the log's name in its checkpoints and its key names */
  origin: string;
  /** null: a key generated once and kept in Postgres (shared by replicas) */
  signingKey: KeyObject | null;
}

export const DEFAULT_LOG_ORIGIN = 'recloser.controller/transitions';

export function readReceiptsConfig(env: NodeJS.ProcessEnv = process.env): ReceiptsConfig {
  const origin = env.RECLOSER_LOG_ORIGIN ?? DEFAULT_LOG_ORIGIN;
  if (!/^[\x21-\x7e]{1,200}$/.test(origin) || origin.includes('+'))
    throw new StartupError(
      'RECLOSER_LOG_ORIGIN must be 1 to 200 printable ASCII characters without spaces or "+"',
    );
  const inline = env.RECLOSER_SIGNING_KEY;
  const file = env.RECLOSER_SIGNING_KEY_FILE;
  if (inline && file)
    throw new StartupError('RECLOSER_SIGNING_KEY and RECLOSER_SIGNING_KEY_FILE are both set; set one');
  let pem: string | null = inline ?? null;
  const name = file ? 'RECLOSER_SIGNING_KEY_FILE' : 'RECLOSER_SIGNING_KEY';
  if (file) {
    try {
      pem = readFileSync(file, 'utf8');
    } catch (err) {
      throw new StartupError(`RECLOSER_SIGNING_KEY_FILE: cannot read ${file} (${(err as Error).message})`);
    }
  }
  if (pem === null) return { origin, signingKey: null };
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new StartupError(`${name} is not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new StartupError(`${name} must be an Ed25519 key (got ${key.asymmetricKeyType})`);
  return { origin, signingKey: key };
}
