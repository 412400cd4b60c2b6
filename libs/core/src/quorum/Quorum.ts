// Global OPEN is a quorum of local verdicts among LIVE instances, so one bad node (or a
// fleet the controller has not heard from yet) never opens a group on its own.
import type { ReportedState } from '../wire.js';

export interface QuorumPolicy {
  /** fraction of live instances that must be locally open, in (0, 1] */
  fraction: number;
  /** at least this many locally open instances, whatever the fleet size */
  minOpen: number;
}

export const DEFAULT_QUORUM: QuorumPolicy = { fraction: 0.5, minOpen: 2 };

/** One instance's latest verdict on one breaker, as the controller stores it. */
export interface QuorumRow {
  instanceId: string;
  region: string;
  state: ReportedState;
  /** controller clock, ms */
  lastSeenAt: number;
  /** controller clock, ms: when the controller first saw this instance locally open */
  openSince: number | null;
}

export interface QuorumContext {
  now: number;
  heartbeatTtlMs: number;
  policy: QuorumPolicy;
  /** no quorum is declared before this time: the controller is still hearing from the fleet */
  learningUntil: number;
}

export interface QuorumDecision {
  /** live instances that are locally open */
  open: number;
  live: number;
  threshold: number;
  reached: boolean;
  learning: boolean;
  /** the live, locally open instances whose verdicts formed (or would form) the quorum, sorted */
  formedBy: string[];
}

// fraction·live in floating point can land a hair above an integer (0.1·30 = 3.0000000000000004);
// without this tolerance ceil would demand one instance more than the policy says.
const EPSILON = 1e-9;

/** K = max(minOpen, ceil(fraction·live)), never below 1 so an empty group never "reaches" quorum. */
export function quorumThreshold(live: number, policy: QuorumPolicy): number {
  const proportional = Math.ceil(policy.fraction * live - EPSILON);
  return Math.max(1, policy.minOpen, proportional);
}

/** A heartbeat row counts toward L while it is younger than the TTL. */
export function isLive(row: Pick<QuorumRow, 'lastSeenAt'>, now: number, heartbeatTtlMs: number): boolean {
  return row.lastSeenAt > now - heartbeatTtlMs;
}

/** Locally open = the instance's own evidence opened it (open), including its self-probe (half_open). */
export function isLocallyOpen(state: ReportedState): boolean {
  return state === 'open' || state === 'half_open';
}

export function evaluateQuorum(rows: readonly QuorumRow[], ctx: QuorumContext): QuorumDecision {
  let live = 0;
  const formedBy: string[] = [];
  for (const row of rows) {
    if (!isLive(row, ctx.now, ctx.heartbeatTtlMs)) continue;
    live += 1;
    if (isLocallyOpen(row.state)) formedBy.push(row.instanceId);
  }
  formedBy.sort();
  const threshold = quorumThreshold(live, ctx.policy);
  const learning = ctx.now < ctx.learningUntil;
  const open = formedBy.length;
  return { open, live, threshold, reached: !learning && open >= threshold, learning, formedBy };
}
