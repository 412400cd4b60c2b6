// `npm run verify -- BUNDLE [--keys FILE] [--last-checkpoint FILE] [--save-checkpoint FILE]`: checks
// a breaker's export offline (core verifyBundle with Node's crypto). Exit 0 when everything
// verifies; else 1 with one last line naming what failed (2: bad usage or unreadable files).
import { readFileSync, writeFileSync } from 'node:fs';
import { type Bundle, verifyBundle } from '@recloser/core';
import { nodeReceiptCrypto } from './node-crypto.js';

export interface CliResult {
  code: 0 | 1 | 2;
  out: string[];
  err: string[];
}

const USAGE =
  'usage: npm run verify -- BUNDLE [--keys FILE] [--last-checkpoint FILE] [--save-checkpoint FILE]';

/** Pinned keys: the JSON of GET /v1/admin/log/keys ({ keys: [{ vkey }] }), or one verifier key per line. */
export function parseKeys(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const json = JSON.parse(trimmed) as { keys?: { vkey: string }[] } | { vkey: string }[];
    const list = Array.isArray(json) ? json : (json.keys ?? []);
    return list.map((k) => k.vkey);
  }
  return trimmed
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
}

/** A checkpoint: the signed note itself, or the JSON of GET /v1/admin/log/checkpoint ({ note }). */
export function parseCheckpoint(text: string): string {
  return text.trimStart().startsWith('{') ? (JSON.parse(text) as { note: string }).note : text;
}

export function runVerify(
  argv: readonly string[],
  read: (f: string) => string = (f) => readFileSync(f, 'utf8'),
): CliResult {
  const out: string[] = [];
  const err: string[] = [];
  const files: Record<string, string | undefined> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--keys' || a === '--last-checkpoint' || a === '--save-checkpoint') {
      const v = argv[i + 1];
      if (!v) return { code: 2, out, err: [`${a} needs a file`, USAGE] };
      files[a] = v;
      i += 1;
    } else if (a.startsWith('--')) return { code: 2, out, err: [`unknown option ${a}`, USAGE] };
    else positional.push(a);
  }
  if (positional.length !== 1) return { code: 2, out, err: [USAGE] };
  let bundle: Bundle;
  let pinned: string[] | undefined;
  let lastCheckpoint: string | undefined;
  try {
    bundle = JSON.parse(read(positional[0]!)) as Bundle;
    if (files['--keys']) pinned = parseKeys(read(files['--keys']));
    if (files['--last-checkpoint']) lastCheckpoint = parseCheckpoint(read(files['--last-checkpoint']));
  } catch (e) {
    return { code: 2, out, err: [`cannot read input: ${(e as Error).message}`] };
  }
  const result = verifyBundle(bundle, nodeReceiptCrypto, {
    ...(pinned ? { pinned } : {}),
    ...(lastCheckpoint !== undefined ? { lastCheckpoint } : {}),
  });
  if (!result.ok) return { code: 1, out, err: [`verify FAILED: ${result.failure}`] };
  for (const w of result.warnings) err.push(`warning: ${w}`);
  const cp = result.checkpoint;
  out.push(
    `verified: breaker ${bundle.breakerId}: ${result.entries} log entries, ${result.receipts} quorum certificate(s), under checkpoint ${cp.origin} size ${cp.size}${lastCheckpoint !== undefined ? ', consistent with the last checkpoint' : ''}`,
  );
  if (files['--save-checkpoint']) writeFileSync(files['--save-checkpoint'], bundle.checkpoint.note);
  return { code: 0, out, err };
}
