// The certificate of a global OPEN (or a region_open) by quorum, from the live rows the decision read
// under the breaker's lock (a region's: its region's rows): L and its digest, K, the policy, and the verdicts of the instances that formed it
// (their signed envelopes where they signed, else marked unsigned).
import {
  type CertifiedVerdict,
  type DsseEnvelope,
  type IdentityMode,
  liveDigest,
  PAYLOAD_TYPES,
  type QuorumCertificate,
  type QuorumPolicy,
  type ReceiptSigner,
  signEnvelope,
  toBasisPoints,
} from '@recloser/core';
import type { VerdictRow } from '@recloser/control';
import { nodeReceiptCrypto } from './node-crypto.js';
import { wellFormed } from './log-entry.js';

export interface CertificateInput {
  breaker: { id: string; group: string; dependency: string };
  epoch: number;
  at: number;
  /** the live rows the decision counted */
  rows: readonly (VerdictRow & {
    envelope?: DsseEnvelope | null;
    keyId?: string | null;
    /** signed while the instance followed its region's breaker: that one and its epoch */
    followed?: { breakerId: string; epoch: number };
  })[];
  formedBy: readonly string[];
  threshold: number;
  policy: QuorumPolicy;
  identity: IdentityMode;
  /** a region_open: the region, its group breaker and that breaker's epoch (the verdicts') */
  region?: QuorumCertificate['region'];
}

export function quorumCertificate(input: CertificateInput): QuorumCertificate {
  const byId = new Map(input.rows.map((r) => [r.instanceId, r]));
  const verdicts: CertifiedVerdict[] = [...input.formedBy].sort().map((id) => {
    const r = byId.get(id)!;
    if (!r.envelope || !r.keyId)
      return { instanceId: id, signed: false, state: r.state, evidence: r.evidence };
    const signed = { instanceId: id, signed: true as const, keyId: r.keyId, envelope: r.envelope };
    return r.followed ? { ...signed, followed: r.followed } : signed;
  });
  return wellFormed({
    type: 'recloser.quorum-certificate/v1',
    breakerId: input.breaker.id,
    group: input.breaker.group,
    dependency: input.breaker.dependency,
    epoch: input.epoch,
    at: new Date(input.at).toISOString(),
    live: input.rows.length,
    liveDigest: liveDigest(
      nodeReceiptCrypto.sha256,
      input.rows.map((r) => r.instanceId),
    ),
    threshold: input.threshold,
    policy: policyOf(input.policy),
    identity: input.identity,
    verdicts,
    ...(input.region ? { region: input.region } : {}),
  });
}

export function signCertificate(c: QuorumCertificate, signer: ReceiptSigner): DsseEnvelope {
  return signEnvelope(PAYLOAD_TYPES.quorumCertificate, c, signer);
}

/** Basis points; the exact fraction beside them only when they would round it (K must re-derive exactly). */
function policyOf(p: QuorumPolicy): QuorumCertificate['policy'] {
  const fractionBps = toBasisPoints(p.fraction);
  const exact = fractionBps / 10_000 === p.fraction;
  return exact
    ? { fractionBps, minOpen: p.minOpen }
    : { fractionBps, minOpen: p.minOpen, fraction: p.fraction };
}
