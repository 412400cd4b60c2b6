// The probe budget rule: how many probe tokens may be live and how fast they may be granted.
// It is sized to the provider's recovery capacity, never to the fleet. The controller's Redis Lua
// script (apps/controller/src/probes/probe-lease.scripts.ts) applies exactly this rule atomically
// across replicas; the simulator calls it directly.
import type { ProbeBudget } from '../pool/PoolConfig.js';

/** A grant counts against the rate for this long after it was made. */
export const PROBE_RATE_WINDOW_MS = 1000;

export interface ProbeGrantInput {
  now: number;
  /** leases with now < expiresAt */
  liveLeases: number;
  /** the earliest expiresAt among the live leases, to say when a slot frees up */
  nextLeaseExpiryAt?: number;
  budget: Pick<ProbeBudget, 'concurrency' | 'ratePerSec' | 'leaseTtlMs'>;
  /** times of recent grants; those at or before now − 1 s are ignored */
  recentGrantTimes: readonly number[];
  /** nothing is granted before this (e.g. one lease TTL after the lease store lost its data) */
  blockedUntil: number;
  /**
   * When several groups probe through one pool at once: the most live leases the requesting
   * breaker's group may hold (probeFairShare), and the expiry times of those the group holds now
   * (over all its breakers and instances, so neither a fresh instance id nor a second dependency
   * name in the same pool buys a bigger share).
   */
  fairShare?: { cap: number; groupLeaseExpiries: readonly number[] };
}

export type ProbeRefusalReason = 'learning' | 'concurrency' | 'fair_share' | 'rate';

export type ProbeGrantDecision =
  { grant: true } | { grant: false; retryAfterMs: number; reason: ProbeRefusalReason };

/**
 * Grants when now ≥ blockedUntil, live leases < concurrency, the requesting breaker holds fewer
 * live leases than its group's fair share (when one is given), and grants in (now − 1 s, now] <
 * ratePerSec (so at most ratePerSec grants in any 1 s window; validation keeps it a whole number).
 * A refusal says when to ask again: when the block ends, the first lease (of the pool, or of the
 * group) expires, or the oldest grant leaves the window.
 */
export function decideProbeGrant(input: ProbeGrantInput): ProbeGrantDecision {
  const { now, budget } = input;
  if (now < input.blockedUntil) {
    return { grant: false, reason: 'learning', retryAfterMs: input.blockedUntil - now };
  }
  if (input.liveLeases >= budget.concurrency) {
    const until = input.nextLeaseExpiryAt !== undefined ? input.nextLeaseExpiryAt - now : budget.leaseTtlMs;
    return { grant: false, reason: 'concurrency', retryAfterMs: Math.max(1, until) };
  }
  if (input.fairShare) {
    const held = input.fairShare.groupLeaseExpiries.filter((e) => e > now);
    if (held.length >= input.fairShare.cap) {
      return { grant: false, reason: 'fair_share', retryAfterMs: Math.max(1, Math.min(...held) - now) };
    }
  }
  let recent = 0;
  let oldest = Infinity;
  for (const t of input.recentGrantTimes) {
    if (t > now - PROBE_RATE_WINDOW_MS && t <= now) {
      recent++;
      if (t < oldest) oldest = t;
    }
  }
  if (recent >= budget.ratePerSec) {
    return { grant: false, reason: 'rate', retryAfterMs: Math.max(1, oldest + PROBE_RATE_WINDOW_MS - now) };
  }
  return { grant: true };
}

/**
 * A group's share of its pool's probe concurrency while `contending` groups (with a breaker OPEN
 * or PROBING through the pool) draw on it at once: an equal split, at least one. One group
 * hammering the lease endpoint (with fresh instance ids, or through several dependency names bound
 * to the pool) then holds at most its share, and the others keep theirs.
 */
export function probeFairShare(concurrency: number, contending: number): number {
  if (!(contending > 1)) return concurrency;
  return Math.max(1, Math.floor(concurrency / contending));
}
