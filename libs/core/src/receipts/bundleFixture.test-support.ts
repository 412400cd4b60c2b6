// A small log in memory: one breaker opened by a quorum (one verdict signed, the rest unsigned),
// probed, ramped one step, forced closed; other breakers' leaves around it. For the bundle tests.
import { utf8 } from './Bytes.js';
import { canonicalize, toBasisPoints } from './Canonical.js';
import { verifierKey } from './Checkpoint.js';
import type { ReceiptSigner } from './Crypto.js';
import { envelopeDigest, PAYLOAD_TYPES, signEnvelope, type DsseEnvelope } from './Dsse.js';
import { leafHash } from './Merkle.js';
import { nodeCrypto, testSigner } from './nodeCrypto.test-support.js';
import {
  CHAIN_GENESIS,
  liveDigest,
  type CertifiedVerdict,
  type LogEntryStatement,
  type LogLeafStatement,
  type QuorumCertificate,
  type ShiftLogStatement,
  type VerdictStatement,
} from './Statements.js';
import type { ShiftMode } from '../region/ShiftPlan.js';
import type { ShiftPhase } from '../region/ShiftVelocity.js';
import { assembleBundle, type Bundle } from './Bundle.js';

const H = nodeCrypto.sha256;
export const BREAKER = '00000000-0000-4000-8000-000000000001';
export const GATES = {
  minSuccessRate: 0.95,
  maxLatencyP95Ms: 2000,
  maxTtftP95Ms: 1500,
  maxQueueAgeMs: 5000,
  max429Rate: 0.02,
};
const EVIDENCE = {
  attempts: 20,
  successes: 0,
  byClass: { overload: 20, network: 0, rate_limited: 0, auth: 0, client_error: 0, slow: 0 },
  latencyP95Ms: 30000,
  ttftP95Ms: null,
  queueAgeMs: 0,
};

export interface Fixture {
  controller: ReceiptSigner;
  instance: ReceiptSigner;
  bundle: Bundle;
  /** the leaf hashes of the whole log (to make later trees) */
  leaves: Uint8Array[];
  build(over?: {
    verdict?: Partial<VerdictStatement>;
    verdictSigner?: ReceiptSigner;
    rampFailed?: string[];
    threshold?: number;
    extraLeaves?: number;
    /** shift plan leaves of this breaker (started after the open, reversed and ended at the end) */
    withShifts?: boolean;
    /** the second shift leaf claims this phase (a leaf whose phase does not follow from its modes) */
    secondShiftPhase?: ShiftPhase;
    /** fields of the certificate as the controller signs it (a region's: `region`) */
    certificate?: Partial<QuorumCertificate>;
    /** r0's verdict was signed while it followed its region's breaker (in that breaker's epoch) */
    followed?: { breakerId: string; epoch: number };
    /** figures of the opening entry beside its quorum figures (a region's: scope and regional) */
    openingFigures?: Record<string, unknown>;
  }): Bundle;
}

export function signedVerdict(signer: ReceiptSigner, over: Partial<VerdictStatement> = {}): DsseEnvelope {
  const v: VerdictStatement = {
    type: 'recloser.verdict/v1',
    instanceId: 'r0',
    group: 'g',
    dependency: 'dep',
    state: 'open',
    evidence: EVIDENCE,
    seq: 7,
    epoch: 0,
    ...over,
  };
  return signEnvelope(PAYLOAD_TYPES.verdict, v, signer);
}

export function fixture(): Fixture {
  const controller = testSigner('recloser.test/log');
  const instance = testSigner('r0');
  const build: Fixture['build'] = (over = {}) => {
    const live = Array.from({ length: 10 }, (_, i) => `r${i}`);
    const open = live.slice(0, 7);
    const verdicts: CertifiedVerdict[] = open.map((id) =>
      id === 'r0'
        ? {
            instanceId: id,
            signed: true,
            keyId: instance.keyId,
            envelope: signedVerdict(over.verdictSigner ?? instance, over.verdict),
            ...(over.followed ? { followed: over.followed } : {}),
          }
        : { instanceId: id, signed: false, state: 'open', evidence: EVIDENCE },
    );
    const cert: QuorumCertificate = {
      type: 'recloser.quorum-certificate/v1',
      breakerId: BREAKER,
      group: 'g',
      dependency: 'dep',
      epoch: 1,
      at: '2026-12-03T09:00:00.000Z',
      live: 10,
      liveDigest: liveDigest(H, live),
      threshold: over.threshold ?? 5,
      policy: { fractionBps: toBasisPoints(0.5), minOpen: 2 },
      identity: 'optional',
      verdicts,
      ...over.certificate,
    };
    const certEnvelope = signEnvelope(PAYLOAD_TYPES.quorumCertificate, cert, controller);
    const base = {
      type: 'recloser.transition/v1' as const,
      breakerId: BREAKER,
      group: 'g',
      dependency: 'dep',
      formedBy: [] as string[],
      certificate: null,
      gateThresholds: null,
      fromStep: null,
      step: null,
    };
    const drafts: Omit<LogEntryStatement, 'seq' | 'prevHash' | 'hash'>[] = [
      {
        ...base,
        from: 'closed',
        to: 'open',
        epoch: 1,
        actor: 'quorum',
        reason: 'quorum: 7 of 10',
        figures: { quorum: { open: 7, live: 10, threshold: over.threshold ?? 5 }, ...over.openingFigures },
        formedBy: open,
        at: '2026-12-03T09:00:00.000Z',
        certificate: envelopeDigest(H, certEnvelope),
      },
      {
        ...base,
        from: 'open',
        to: 'probing',
        epoch: 1,
        actor: 'cooldown',
        reason: 'cooldown over',
        figures: {},
        at: '2026-12-03T09:00:30.000Z',
      },
      {
        ...base,
        from: 'probing',
        to: 'ramping',
        epoch: 1,
        actor: 'probe',
        reason: 'probes passed',
        figures: { level: 0.05 },
        step: 0,
        at: '2026-12-03T09:00:31.000Z',
      },
      {
        ...base,
        from: 'ramping',
        to: 'ramping',
        epoch: 1,
        actor: 'ramp',
        reason: 'level held',
        fromStep: 0,
        step: 1,
        gateThresholds: GATES,
        figures: {
          level: 0.1,
          gates: {
            outcome: 'pass',
            attempts: 50,
            minSample: 20,
            successRate: over.rampFailed ? 0.5 : 1,
            rate429: 0,
            latencyP95Ms: 100,
            ttftP95Ms: null,
            queueAgeMs: 0,
            failed: over.rampFailed ?? [],
          },
        },
        at: '2026-12-03T09:00:41.000Z',
      },
      {
        ...base,
        from: 'ramping',
        to: 'closed',
        epoch: 1,
        actor: 'operator',
        reason: 'acceptance receipts',
        figures: { action: 'force_close' },
        fromStep: 1,
        at: '2026-12-03T09:00:42.000Z',
      },
    ];
    let prev = CHAIN_GENESIS;
    const leaves: Uint8Array[] = [];
    const mine: { leafIndex: number; entry: LogLeafStatement }[] = [];
    const shift = (seq: number, from: ShiftMode, to: ShiftMode, phase: ShiftPhase, at: string): void => {
      const entry: ShiftLogStatement = {
        type: 'recloser.shift/v1',
        breakerId: BREAKER,
        group: 'g',
        dependency: 'dep',
        source: 'eu-west',
        seq,
        phase,
        from,
        to,
        reason: phase,
        deficitPerSec: 40,
        receivers: to === 'idle' ? [] : [{ region: 'us-east', ratePerSec: 2.5, headroomPerSec: 25 }],
        expiresAt: to === 'idle' ? null : '2026-12-03T09:30:00.000Z',
        at,
      };
      mine.push({ leafIndex: leaves.length, entry });
      leaves.push(leafHash(H, utf8(canonicalize(entry))));
    };
    const other = (i: number) => leafHash(H, utf8(`other breaker ${i}`));
    drafts.forEach((d, i) => {
      leaves.push(other(i));
      const withChain = { ...d, seq: i + 1, prevHash: prev };
      const entry: LogEntryStatement = {
        ...withChain,
        hash: Buffer.from(H(utf8(prev + canonicalize(withChain)))).toString('hex'),
      };
      prev = entry.hash;
      mine.push({ leafIndex: leaves.length, entry });
      leaves.push(leafHash(H, utf8(canonicalize(entry))));
      if (over.withShifts && i === 0) shift(1, 'idle', 'shifting', 'started', '2026-12-03T09:00:01.000Z');
    });
    if (over.withShifts) {
      shift(2, 'shifting', 'reversing', over.secondShiftPhase ?? 'reversed', '2026-12-03T09:00:43.000Z');
      shift(3, 'reversing', 'idle', 'ended', '2026-12-03T09:00:53.000Z');
    }
    for (let i = 0; i < (over.extraLeaves ?? 0); i++) leaves.push(other(100 + i));
    fx.leaves = leaves;
    return assembleBundle(
      {
        breakerId: BREAKER,
        origin: 'recloser.test/log',
        leafHashes: leaves,
        entries: mine,
        receipts: [{ leafIndex: mine[0]!.leafIndex, envelope: certEnvelope }],
        keys: [
          {
            keyId: controller.keyId,
            vkey: verifierKey(H, 'recloser.test/log', controller.publicKey),
            status: 'active',
          },
        ],
        instanceKeys: [
          {
            instanceId: 'r0',
            group: 'g',
            keyId: instance.keyId,
            publicKey: Buffer.from(instance.publicKey).toString('base64'),
          },
        ],
        consistencyFrom: [3, 10],
      },
      controller,
      H,
    );
  };
  const fx: Fixture = { controller, instance, bundle: undefined as unknown as Bundle, leaves: [], build };
  fx.bundle = build();
  return fx;
}
