// A breaker's export and its offline check: every envelope signed by a pinned key and canonical,
// every entry in the log under the signed checkpoint, the entries the complete chain the manifest
// names, the certificates bound to their entries, the decisions' arithmetic, and no fork from the
// last checkpoint the verifier saw.
import { fromBase64, fromUtf8, toBase64, utf8 } from './Bytes.js';
import { canonicalize } from './Canonical.js';
import { type Checkpoint, openCheckpoint, parseVerifierKey, signCheckpoint } from './Checkpoint.js';
import type { ReceiptCrypto } from './Crypto.js';
import {
  certificateMatchesEntry,
  certifiedVerdictProblem,
  quorumCertificateProblem,
  rampStepProblem,
} from './Decisions.js';
import { type DsseEnvelope, envelopeDigest, openEnvelope, PAYLOAD_TYPES, signEnvelope } from './Dsse.js';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from './Merkle.js';
import { shiftPhaseChange } from '../region/ShiftVelocity.js';
import type { ShiftMode } from '../region/ShiftPlan.js';
import {
  type BundleManifest,
  CHAIN_GENESIS,
  isShiftLeaf,
  type LogEntryStatement,
  type LogLeafStatement,
  type QuorumCertificate,
  type VerdictStatement,
} from './Statements.js';

export interface PublicKeyInfo {
  keyId: string;
  /** "<name>+<hash>+<base64(0x01 ‖ key)>" */
  vkey: string;
  status: 'active' | 'retired';
}

export interface InstanceKeyInfo {
  instanceId: string;
  group: string;
  keyId: string;
  /** base64 of the raw Ed25519 public key */
  publicKey: string;
}

export interface BundleEntry {
  leafIndex: number;
  /** the leaf's statement (a transition, or a shift plan's phase change); its canonical JSON is the leaf data */
  entry: LogLeafStatement;
  /** base64 of the RFC 6962 audit path to the checkpoint */
  inclusionProof: string[];
}

export interface BundleReceipt {
  kind: 'quorum-certificate';
  /** the log leaf of the transition this receipt belongs to */
  leafIndex: number;
  envelope: DsseEnvelope;
  /** the envelope's payload, decoded (a convenience: it must re-encode to exactly the payload) */
  statement: QuorumCertificate;
}

export interface Bundle {
  format: 'recloser.bundle/v1';
  breakerId: string;
  checkpoint: Checkpoint & { note: string };
  keys: PublicKeyInfo[];
  instanceKeys: InstanceKeyInfo[];
  manifest: DsseEnvelope;
  receipts: BundleReceipt[];
  entries: BundleEntry[];
  /** proofs that earlier checkpoints of this log are prefixes of this one */
  consistency: { fromSize: number; proof: string[] }[];
}

export interface VerifyOptions {
  /** pinned controller keys (verifier keys); absent: the bundle's own keys are trusted (said so) */
  pinned?: readonly string[];
  /** the last checkpoint note this verifier accepted (a fork from it is fatal) */
  lastCheckpoint?: string;
}

export type BundleCheck =
  | { ok: true; checkpoint: Checkpoint; entries: number; receipts: number; warnings: string[] }
  | { ok: false; failure: string };

class Failed extends Error {}
const fail = (why: string): never => {
  throw new Failed(why);
};

export function verifyBundle(
  bundle: Bundle,
  crypto: ReceiptCrypto,
  options: VerifyOptions = {},
): BundleCheck {
  try {
    return check(bundle, crypto, options);
  } catch (err) {
    if (err instanceof Failed) return { ok: false, failure: err.message };
    return { ok: false, failure: `bundle is malformed: ${(err as Error).message}` };
  }
}

function check(b: Bundle, crypto: ReceiptCrypto, options: VerifyOptions): BundleCheck {
  const warnings: string[] = [];
  const sha = (d: Uint8Array) => crypto.sha256(d);
  if (!b || b.format !== 'recloser.bundle/v1') fail('bundle: format is not recloser.bundle/v1');

  // keys: pinned ones, or the bundle's own (trust on first use)
  const controllerKeys = new Map<string, Uint8Array>();
  const source = options.pinned ?? (b.keys ?? []).map((k) => k.vkey);
  if (!options.pinned) warnings.push('controller keys taken from the bundle (pin them with --keys)');
  for (const vkey of source) {
    const k = parseVerifierKey(sha, vkey);
    if (!k) fail(`keys: "${String(vkey).slice(0, 40)}" is not a valid verifier key`);
    else controllerKeys.set(k.keyId, k.publicKey);
  }

  // the checkpoint: signed, and the same figures as the bundle says
  const cp = openCheckpoint(b.checkpoint?.note, controllerKeys, crypto);
  if (!cp.ok) return fail(`checkpoint: ${cp.why}`);
  const { size, root: rootB64, origin } = cp.checkpoint;
  if (b.checkpoint.size !== size || b.checkpoint.root !== rootB64 || b.checkpoint.origin !== origin)
    fail('checkpoint: its fields differ from its signed note');
  const root = fromBase64(rootB64);

  // no fork from the last checkpoint seen
  if (options.lastCheckpoint !== undefined) {
    const last = openCheckpoint(options.lastCheckpoint, controllerKeys, crypto);
    if (!last.ok) fail(`last checkpoint: ${last.why}`);
    const prev = (last as { checkpoint: Checkpoint }).checkpoint;
    if (prev.origin !== origin) fail(`last checkpoint is of another log (${prev.origin})`);
    if (prev.size > size)
      fail(
        `last checkpoint (size ${prev.size}) is newer than the bundle's (size ${size}); fetch a newer bundle`,
      );
    const proof =
      prev.size === size || prev.size === 0
        ? { proof: [] }
        : (b.consistency ?? []).find((c) => c.fromSize === prev.size);
    if (!proof)
      fail(
        `consistency: no proof from the last checkpoint's size ${prev.size} in the bundle (export it with ?since=${prev.size})`,
      );
    const ok = verifyConsistency(
      sha,
      prev.size,
      size,
      fromBase64(prev.root),
      root,
      proof!.proof.map(fromBase64),
    );
    if (!ok)
      fail(
        `consistency: FORK — the log at size ${size} does not extend the last checkpoint at size ${prev.size}`,
      );
  }

  // the manifest: which leaves are this breaker's, signed
  const m = openEnvelope(b.manifest, PAYLOAD_TYPES.bundleManifest, controllerKeys, crypto);
  if (!m.ok) return fail(`manifest: ${m.why}`);
  const manifest = m.statement as BundleManifest;
  if (manifest.breakerId !== b.breakerId) fail('manifest: it is for another breaker');
  if (manifest.treeSize !== size)
    fail(`manifest: tree size ${manifest.treeSize} is not the checkpoint's ${size}`);

  // the entries: exactly the manifest's leaves, in order, each included, chained
  const entries = b.entries ?? [];
  if (entries.length !== manifest.leafIndexes.length)
    fail(
      `entries: ${entries.length} in the bundle but the manifest lists ${manifest.leafIndexes.length} (an entry was dropped or added)`,
    );
  let prevHash = CHAIN_GENESIS;
  let chainSeq = 0;
  let shiftSeq = 0;
  let shiftMode: ShiftMode = 'idle';
  let level: number | null = null;
  const byLeaf = new Map<number, LogEntryStatement>();
  entries.forEach((be, i) => {
    const at = `entry ${i + 1} (leaf ${be.leafIndex})`;
    if (be.leafIndex !== manifest.leafIndexes[i])
      fail(`${at}: the manifest puts leaf ${manifest.leafIndexes[i]} here (entries reordered or dropped)`);
    const e = be.entry;
    let data: Uint8Array;
    try {
      data = utf8(canonicalize(e));
    } catch (err) {
      return fail(`${at}: has no canonical form (${(err as Error).message})`);
    }
    if (
      !verifyInclusion(sha, be.leafIndex, size, leafHash(sha, data), be.inclusionProof.map(fromBase64), root)
    )
      fail(
        `${at}: inclusion proof does not reach the checkpoint's root (the entry was changed or is not in the log)`,
      );
    if (e.breakerId !== b.breakerId) fail(`${at}: belongs to breaker ${e.breakerId}`);
    if (isShiftLeaf(e)) {
      // a shift plan's phase change: numbered among this breaker's shift leaves, each from the last one's mode
      shiftSeq += 1;
      if (e.seq !== shiftSeq)
        fail(
          `${at}: shift leaf ${e.seq} where ${shiftSeq} was expected (a shift leaf is missing or reordered)`,
        );
      if (e.from !== shiftMode)
        fail(`${at}: shift phase from ${e.from}, but the last shift leaf left ${shiftMode}`);
      const phase = shiftPhaseChange(e.from, e.to);
      if (phase !== e.phase)
        fail(`${at}: shift ${e.from} → ${e.to} is ${phase ?? 'no phase change'}, not ${e.phase}`);
      shiftMode = e.to;
      return;
    }
    chainSeq += 1;
    if (e.seq !== chainSeq)
      fail(
        `${at}: chain position ${e.seq} where ${chainSeq} was expected (an entry is missing or reordered)`,
      );
    if (e.prevHash !== prevHash) fail(`${at}: prevHash does not link to the entry before`);
    prevHash = e.hash;
    const ramp = rampStepProblem(e, level);
    if (ramp) fail(`${at}: ramp step not justified: ${ramp}`);
    if (typeof e.figures.level === 'number') level = e.figures.level;
    else if (e.to !== 'ramping') level = null;
    if (e.actor === 'quorum' && e.to === 'open' && e.certificate === null)
      fail(`${at}: a quorum OPEN without a quorum certificate`);
    byLeaf.set(be.leafIndex, e);
  });
  if (manifest.head !== prevHash)
    fail("entries: the last entry's hash is not the manifest's head (entries dropped at the end)");

  // instance keys (registered under fleet keys; the controller vouches for them in the bundle)
  const instanceKeys = new Map<string, Uint8Array>();
  for (const k of b.instanceKeys ?? []) instanceKeys.set(k.keyId, fromBase64(k.publicKey));

  // receipts: signed, canonical, bound to their entries, arithmetic right
  const certified = new Set<number>();
  (b.receipts ?? []).forEach((r, i) => {
    const at = `receipt ${i + 1} (leaf ${r.leafIndex})`;
    const opened = openEnvelope(r.envelope, PAYLOAD_TYPES.quorumCertificate, controllerKeys, crypto);
    if (!opened.ok) return fail(`${at}: quorum certificate: ${opened.why}`);
    if (canonicalize(r.statement) !== canonicalize(opened.statement))
      fail(`${at}: the statement shown differs from the signed payload (a verdict or figure was changed)`);
    const c = opened.statement as QuorumCertificate;
    const e = byLeaf.get(r.leafIndex);
    if (!e) return fail(`${at}: its log entry is not in the bundle`);
    if (e.certificate !== envelopeDigest(sha, r.envelope))
      fail(`${at}: the log entry does not commit to this certificate`);
    const bound = certificateMatchesEntry(c, e);
    if (bound) fail(`${at}: ${bound}`);
    const arithmetic = quorumCertificateProblem(c);
    if (arithmetic) fail(`${at}: quorum does not hold: ${arithmetic}`);
    for (const v of c.verdicts) {
      if (!v.signed) continue;
      const keys = new Map<string, Uint8Array>();
      const known = instanceKeys.get(v.keyId);
      if (known) keys.set(v.keyId, known);
      const sv = openEnvelope(v.envelope, PAYLOAD_TYPES.verdict, keys, crypto);
      if (!sv.ok) fail(`${at}: verdict of ${v.instanceId}: ${sv.why}`);
      const key = (b.instanceKeys ?? []).find((k) => k.keyId === v.keyId);
      if (key && key.instanceId !== v.instanceId)
        fail(`${at}: verdict of ${v.instanceId} signed with the key of ${key.instanceId}`);
      const p = certifiedVerdictProblem(
        c,
        v.instanceId,
        (sv as { statement: unknown }).statement as VerdictStatement,
        v.followed,
      );
      if (p) fail(`${at}: ${p}`);
    }
    const unsigned = c.verdicts.filter((v) => !v.signed).length;
    if (unsigned > 0)
      warnings.push(
        `${at}: ${unsigned} of ${c.verdicts.length} verdicts unsigned (group identity ${c.identity})`,
      );
    certified.add(r.leafIndex);
  });
  for (const [leaf, e] of byLeaf)
    if (e.certificate !== null && !certified.has(leaf))
      fail(`entry at leaf ${leaf}: its quorum certificate is missing from the bundle`);
  return { ok: true, checkpoint: cp.checkpoint, entries: entries.length, receipts: certified.size, warnings };
}

/** What a log holds for one export: every leaf hash, and this breaker's entries and receipts. */
export interface BundleSource {
  breakerId: string;
  origin: string;
  /** every leaf hash of the log, in order (the tree the checkpoint covers) */
  leafHashes: readonly Uint8Array[];
  entries: readonly { leafIndex: number; entry: LogLeafStatement }[];
  receipts: readonly { leafIndex: number; envelope: DsseEnvelope }[];
  keys: PublicKeyInfo[];
  instanceKeys: InstanceKeyInfo[];
  /** earlier tree sizes to prove this one consistent with */
  consistencyFrom: readonly number[];
}

/** Assembles (and signs the checkpoint and manifest of) one breaker's export bundle. */
export function assembleBundle(
  src: BundleSource,
  signer: import('./Crypto.js').ReceiptSigner,
  sha256: (d: Uint8Array) => Uint8Array,
): Bundle {
  const size = src.leafHashes.length;
  const memo = new Map<string, Uint8Array>(); // every proof below reuses the subtree roots
  const checkpoint: Checkpoint = {
    origin: src.origin,
    size,
    root: toBase64(rootOf(sha256, src.leafHashes, 0, size, memo)),
  };
  const entries = [...src.entries].sort((a, b) => a.leafIndex - b.leafIndex);
  const manifest: BundleManifest = {
    type: 'recloser.bundle-manifest/v1',
    breakerId: src.breakerId,
    treeSize: size,
    leafIndexes: entries.map((e) => e.leafIndex),
    head: transitionsOf(entries).at(-1)?.hash ?? CHAIN_GENESIS,
  };
  return {
    format: 'recloser.bundle/v1',
    breakerId: src.breakerId,
    checkpoint: { ...checkpoint, note: signCheckpoint(checkpoint, signer) },
    keys: src.keys,
    instanceKeys: src.instanceKeys,
    manifest: signEnvelope(PAYLOAD_TYPES.bundleManifest, manifest, signer),
    receipts: src.receipts.map((r) => ({
      kind: 'quorum-certificate',
      leafIndex: r.leafIndex,
      envelope: r.envelope,
      statement: JSON.parse(fromUtf8(fromBase64(r.envelope.payload))) as QuorumCertificate,
    })),
    entries: entries.map((e) => ({
      leafIndex: e.leafIndex,
      entry: e.entry,
      inclusionProof: inclusionProof(sha256, src.leafHashes, e.leafIndex, size, memo).map(toBase64),
    })),
    consistency: src.consistencyFrom
      .filter((m) => m > 0 && m < size)
      .map((m) => ({
        fromSize: m,
        proof: consistencyProof(sha256, src.leafHashes, m, size, memo).map(toBase64),
      })),
  };
}

/** The transition entries among a breaker's leaves (shift leaves are not in its hash chain), in order. */
function transitionsOf(entries: readonly { entry: LogLeafStatement }[]): LogEntryStatement[] {
  return entries.map((e) => e.entry).filter((e): e is LogEntryStatement => !isShiftLeaf(e));
}
