// The decision invariants a verifier re-checks from signed material alone: a certificate's K is
// core's threshold of its L (the group's, or for a region_open the region's) under its policy and at
// least K locally open verdicts formed it, signed in its breaker's epoch; a ramp step is justified
// by its gate figures against the pool's gates.
import { collapsedSuccessRate, failedGates, type GateFigures } from '../ramp/Gates.js';
import { isLocallyOpen, quorumThreshold } from '../quorum/Quorum.js';
import { fromBasisPoints } from './Canonical.js';
import type { LogEntryStatement, QuorumCertificate, VerdictStatement } from './Statements.js';
import { EPOCH_GRACE, keptSignedEpoch, signedEpoch } from './VerdictIdentity.js';

/** Null when the arithmetic holds, else what is wrong. Signed verdicts are checked by the caller. */
export function quorumCertificateProblem(c: QuorumCertificate): string | null {
  const policy = {
    fraction: c.policy?.fraction ?? fromBasisPoints(c.policy?.fractionBps),
    minOpen: c.policy?.minOpen,
  };
  if (!(policy.fraction > 0 && policy.fraction <= 1) || !Number.isInteger(policy.minOpen))
    return 'the quorum policy is not a policy';
  if (!Number.isInteger(c.live) || c.live < 0) return `L=${c.live} is not a count`;
  if (c.region !== undefined) {
    const r = c.region;
    if (!r || typeof r.region !== 'string' || r.region === '' || typeof r.groupBreakerId !== 'string')
      return 'the region of a region certificate is not named';
    if (!Number.isInteger(r.signedIn) || r.signedIn < 0)
      return `the group breaker's epoch ${r.signedIn} is not an epoch`;
  }
  const k = quorumThreshold(c.live, policy);
  if (c.threshold !== k)
    return `K=${c.threshold} but max(minOpen ${policy.minOpen}, ceil(${policy.fraction}·L ${c.live})) is ${k}`;
  const ids = new Set(c.verdicts.map((v) => v.instanceId));
  if (ids.size !== c.verdicts.length) return 'an instance appears twice among the verdicts';
  if (c.verdicts.length > c.live) return `${c.verdicts.length} verdicts but only ${c.live} live instances`;
  if (c.verdicts.length < c.threshold) return `${c.verdicts.length} verdicts, fewer than K=${c.threshold}`;
  for (const v of c.verdicts) {
    if (!v.signed && c.identity === 'required')
      return `verdict of ${v.instanceId} is unsigned but the group requires signatures`;
    if (!v.signed && !isLocallyOpen(v.state))
      return `verdict of ${v.instanceId} is not locally open (${v.state})`;
  }
  return null;
}

/** A signed verdict as its certificate uses it: the same instance and breaker, its epoch, locally open. */
export function certifiedVerdictProblem(
  c: QuorumCertificate,
  instanceId: string,
  v: VerdictStatement,
  followed?: { breakerId: string; epoch: number },
): string | null {
  if (v.type !== 'recloser.verdict/v1') return `verdict of ${instanceId} is not a verdict statement`;
  if (v.instanceId !== instanceId) return `verdict listed for ${instanceId} was signed for ${v.instanceId}`;
  if (v.group !== c.group || v.dependency !== c.dependency)
    return `verdict of ${instanceId} is about another breaker`;
  if (!isLocallyOpen(v.state)) return `verdict of ${instanceId} is not locally open (${v.state})`;
  // signed in the epoch the breaker opened from (a region's: its group breaker's; a verdict of an
  // instance that followed its region's breaker: that one's), or within grace of it (core signedEpoch)
  if (followed && (c.region || !Number.isInteger(followed.epoch) || followed.epoch < 0))
    return `verdict of ${instanceId} names a followed breaker where none can be`;
  const from = followed?.epoch ?? certifiedEpoch(c);
  const of = followed ? ` of its region's breaker ${followed.breakerId}` : '';
  if (!keptSignedEpoch(signedEpoch(v.epoch, from)))
    return `verdict of ${instanceId} was signed in epoch ${v.epoch}, not ${from}${of}${from > 0 ? ` or within ${EPOCH_GRACE} epoch before it` : ''} (a replay)`;
  return null;
}

/**
 * The epoch a certificate's verdicts are signed in (before grace): a global OPEN's, the epoch the
 * breaker opened from; a region_open's, its group breaker's (which the region's instances followed).
 */
export function certifiedEpoch(c: QuorumCertificate): number {
  return c.region ? c.region.signedIn : c.epoch - 1;
}

/** The certificate's figures are the log entry's (the entry that the certificate belongs to). */
export function certificateMatchesEntry(c: QuorumCertificate, e: LogEntryStatement): string | null {
  const q = (e.figures as { quorum?: { open?: number; live?: number; threshold?: number } }).quorum;
  if (c.breakerId !== e.breakerId || c.epoch !== e.epoch)
    return 'certificate is for another breaker or epoch';
  // a region_open is certified as one, for its region and group breaker (the entry's regional figures)
  const f = e.figures as { scope?: unknown; regional?: { region?: unknown; groupBreakerId?: unknown } };
  const entryRegion = typeof f.scope === 'string' && f.scope.startsWith('region:') ? f.scope.slice(7) : null;
  if (entryRegion === null && c.region !== undefined)
    return `certificate is for region ${c.region.region} but the entry opened no region's breaker`;
  if (entryRegion !== null && c.region === undefined)
    return `entry opened region ${entryRegion}'s breaker but its certificate is not a region's`;
  if (
    c.region &&
    (c.region.region !== entryRegion ||
      f.regional?.region !== entryRegion ||
      f.regional?.groupBreakerId !== c.region.groupBreakerId)
  )
    return `certificate is for region ${c.region.region} of group breaker ${c.region.groupBreakerId}, the entry for region ${entryRegion} of ${String(f.regional?.groupBreakerId)}`;
  if (!q || q.live !== c.live || q.threshold !== c.threshold || q.open !== c.verdicts.length)
    return `certificate (L=${c.live}, K=${c.threshold}, ${c.verdicts.length} verdicts) disagrees with the entry's quorum figures`;
  const formed = [...e.formedBy].sort().join(',');
  if (
    formed !==
    c.verdicts
      .map((v) => v.instanceId)
      .sort()
      .join(',')
  )
    return "certificate's verdicts are not the instances that formed the entry";
  return null;
}

/**
 * A ramp transition is justified by its gates: the failed gates are those its figures fail (the
 * latency-inflation gate needs the baseline and is taken as recorded); a step up or a close needs a
 * pass; a step down or a reopen needs degrade or collapse. `levelBefore` is null when unknown.
 */
export function rampStepProblem(e: LogEntryStatement, levelBefore: number | null): string | null {
  if (e.actor !== 'ramp') return null;
  const g = (e.figures as { gates?: GateFigures }).gates;
  if (!g) return 'ramp transition without gate figures';
  if (e.gateThresholds) {
    const derived = failedGates(g, e.gateThresholds).sort().join(',');
    const recorded = g.failed
      .filter((f) => f !== 'latencyInflation')
      .sort()
      .join(',');
    if (derived !== recorded) return `gates failed are [${recorded}] but the figures fail [${derived}]`;
    if (g.outcome === 'pass' && g.failed.length > 0) return 'outcome pass with failed gates';
    if (g.outcome === 'collapse' && !collapsedSuccessRate(g.successRate, e.gateThresholds))
      return `collapse with success rate ${g.successRate} ≥ half the gate`;
  }
  const after = typeof e.figures.level === 'number' ? e.figures.level : null;
  const up = e.to === 'closed' || (levelBefore !== null && after !== null && after > levelBefore);
  const down = e.to === 'open' || (levelBefore !== null && after !== null && after < levelBefore);
  if (up && g.outcome !== 'pass')
    return `a step up (${levelBefore} → ${e.to === 'closed' ? 'closed' : after}) on gates that did not pass (${g.outcome})`;
  if (down && g.outcome !== 'degrade' && g.outcome !== 'collapse')
    return `a step down on gates that ${g.outcome === 'pass' ? 'passed' : g.outcome}`;
  return null;
}
