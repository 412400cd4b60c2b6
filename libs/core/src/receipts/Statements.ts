// What Recloser signs and logs: an instance's verdict, the controller's quorum certificate, a log
// entry (one transition) and a bundle's manifest. Field names are public (add, never rename).
import { toHex, utf8 } from './Bytes.js';
import { canonicalize } from './Canonical.js';
import type { GateThresholds } from '../pool/PoolConfig.js';
import type { Evidence, ReportedState } from '../wire.js';

/** Whether a group's instances must sign their verdicts. */
export type IdentityMode = 'off' | 'optional' | 'required';
export const IDENTITY_MODES: readonly IdentityMode[] = ['off', 'optional', 'required'];

/** An instance's signed verdict (DSSE payload, PAYLOAD_TYPES.verdict). */
export interface VerdictStatement {
  type: 'recloser.verdict/v1';
  instanceId: string;
  group: string;
  dependency: string;
  state: ReportedState;
  evidence: Evidence;
  /** strictly increasing per instance key: a controller refuses a sequence number it has seen */
  seq: number;
  /** the breaker's epoch as the controller last told the instance (0 before it heard) */
  epoch: number;
}

/** One verdict inside a certificate: signed (its envelope) or, where the group allows, unsigned. */
export type CertifiedVerdict =
  | {
      instanceId: string;
      signed: true;
      keyId: string;
      envelope: import('./Dsse.js').DsseEnvelope;
      /**
       * A global OPEN's verdict signed while its instance followed its region's breaker (open in its
       * region while the group's was closed): that breaker and its epoch when the certificate was
       * made, which the verdict's epoch is judged against instead of the certificate's.
       */
      followed?: { breakerId: string; epoch: number };
    }
  | { instanceId: string; signed: false; state: ReportedState; evidence: Evidence };

/** The controller's certificate of a global OPEN or a region_open (DSSE payload, PAYLOAD_TYPES.quorumCertificate). */
export interface QuorumCertificate {
  type: 'recloser.quorum-certificate/v1';
  breakerId: string;
  group: string;
  dependency: string;
  /** the epoch the breaker entered by opening */
  epoch: number;
  /** ISO-8601, the controller's clock */
  at: string;
  /** L: live instances */
  live: number;
  /** hex SHA-256 of the canonical JSON array of the live instance ids, sorted */
  liveDigest: string;
  /** K */
  threshold: number;
  /** the quorum fraction in basis points; `fraction` only when it is not a whole number of them */
  policy: { fractionBps: number; minOpen: number; fraction?: number };
  identity: IdentityMode;
  /** the live, locally open instances' verdicts (at least K), by instance id */
  verdicts: CertifiedVerdict[];
  /**
   * A region_open's certificate (the region breaker opened by its region's quorum): the region whose
   * live instances are L, its group's breaker, and that breaker's epoch when the region opened — the
   * region's instances followed the group's breaker while their own was closed, so their verdicts are
   * signed in it (a global OPEN's are signed in `epoch` − 1). Absent on a global OPEN's.
   */
  region?: { region: string; groupBreakerId: string; signedIn: number };
}

/** One leaf of the transparency log: a transition as the per-breaker chain stored it. */
export interface LogEntryStatement {
  type: 'recloser.transition/v1';
  breakerId: string;
  group: string;
  dependency: string;
  /** position in the breaker's hash chain, from 1 */
  seq: number;
  prevHash: string;
  hash: string;
  from: string;
  to: string;
  epoch: number;
  fromStep: number | null;
  step: number | null;
  actor: string;
  reason: string;
  figures: Record<string, unknown>;
  formedBy: string[];
  at: string;
  /** hex SHA-256 of the canonical JSON of the quorum certificate's envelope (a quorum OPEN), else null */
  certificate: string | null;
  /** a ramp transition: the pool's gates it was judged against */
  gateThresholds: GateThresholds | null;
}

/**
 * A leaf of the transparency log for a shift plan's phase change (issue 14 via issue 15: "shift plans
 * are leaves"). It belongs to the source region's breaker but not to its transition chain: its own
 * `seq` counts that breaker's shift leaves from 1, and `from` is the previous shift leaf's `to`.
 */
export interface ShiftLogStatement {
  type: 'recloser.shift/v1';
  /** the source region's breaker */
  breakerId: string;
  group: string;
  dependency: string;
  /** the region whose traffic moves */
  source: string;
  /** position among this breaker's shift leaves, from 1 */
  seq: number;
  phase: import('../region/ShiftVelocity.js').ShiftPhase;
  from: import('../region/ShiftPlan.js').ShiftMode;
  to: import('../region/ShiftPlan.js').ShiftMode;
  reason: string;
  /** requests/s the source could not serve (rounded to 0.001) */
  deficitPerSec: number;
  /** the regions that may receive and at most how many requests/s each (rounded to 0.001) */
  receivers: { region: string; ratePerSec: number; headroomPerSec: number }[];
  /** ISO-8601: when the shift's time limit ends, or null */
  expiresAt: string | null;
  /** ISO-8601, the controller's clock */
  at: string;
}

/** What a log leaf holds: a transition, or a shift plan's phase change. */
export type LogLeafStatement = LogEntryStatement | ShiftLogStatement;

export const isShiftLeaf = (e: LogLeafStatement): e is ShiftLogStatement => e.type === 'recloser.shift/v1';

/** What the controller asserts about one breaker's export (DSSE payload, PAYLOAD_TYPES.bundleManifest). */
export interface BundleManifest {
  type: 'recloser.bundle-manifest/v1';
  breakerId: string;
  /** the checkpoint's tree size */
  treeSize: number;
  /** every log leaf of this breaker in that tree, in log order (= chain order) */
  leafIndexes: number[];
  /** the last chain hash (GENESIS when there is no entry) */
  head: string;
}

/** prevHash of a breaker's first transition. */
export const CHAIN_GENESIS = '0'.repeat(64);

/** hex SHA-256 of the canonical JSON array of the live instance ids, sorted: a certificate's live set. */
export function liveDigest(sha256: (d: Uint8Array) => Uint8Array, liveIds: readonly string[]): string {
  return toHex(sha256(utf8(canonicalize([...liveIds].sort()))));
}
