// What stands between an instance's work and the provider: a strategy's breaker, seen from the
// workload. The workload asks before every call and reports every result.
import type { Outcome } from '@recloser/core';

/** 'call': an ordinary admitted call; 'probe': a half-open trial call or a controller probe. */
export type GateKind = 'call' | 'probe';

export interface CallGate {
  /** May one call go out now? null = blocked. Called on the hot path: no allocation. */
  acquire(): GateKind | null;
  /** The result of a call acquire() let out; `attemptNo` 0 = a unit's first try, k = its k-th retry. */
  complete(
    kind: GateKind,
    outcome: Outcome,
    latencyMs: number,
    retryAfterMs: number | undefined,
    attemptNo?: number,
    region?: string,
  ): void;
  /**
   * A client that budgets its retries (a retry quota) says whether this failed call may be retried
   * and how long to wait first; absent: the workload's own policy (always, with its backoff).
   */
  retry?(attemptNo: number, outcome: Outcome, retryAfterMs: number | undefined): { delayMs: number } | null;
  /**
   * The region whose endpoint the call acquire() just let out goes to (a strategy that moves
   * traffic between regions); absent: the instance's own region. Its result comes back through
   * complete() with the same region.
   */
  route?(): string;
  /** When a blocked gate may admit again (virtual ms); null = only when the strategy nudges the worker. */
  wakeAt(): number | null;
  /** instance-local breaker state, for the series and transitions */
  isOpen(): boolean;
}
