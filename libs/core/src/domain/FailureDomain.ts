// Failure domains: which part of a dependency an outcome speaks about. A pool declares the domain
// its dependency fails in (one global quota, per region, per endpoint, …); a call carries the labels
// it knows (region, endpoint, model, credential id — never the secret). A bad credential then moves
// only that credential's breaker, a missing model only that model's, and an endpoint's 5xx only the
// endpoint (or the region, or the pool, when the pool says its failures are that wide).
import type { Outcome } from '../wire.js';
import { GROUP_SCOPE, scopeProblem, type BreakerScope, type DomainScopeKind } from '../scope/BreakerScope.js';

export const FAILURE_DOMAINS = ['provider', 'region', 'endpoint', 'model', 'credential'] as const;
/** What a pool declares: the widest its dependency's infrastructure faults are expected to be. */
export type FailureDomain = (typeof FAILURE_DOMAINS)[number];

/** What the SDK knows about one call (ids only: a credential is named, never carried). */
export interface CallLabels {
  region?: string;
  endpoint?: string;
  model?: string;
  credentialId?: string;
}

/** The provider's own words about a failure, when the caller has them. */
export interface CallFailure {
  outcome: Outcome;
  /** HTTP status, when there was one */
  status?: number;
  /** the provider's error code (e.g. `model_not_found`, `model_overloaded`) */
  errorCode?: string;
}

/** Where an outcome lands: the pool's quota, one domain's breaker, or nowhere (says nothing). */
export type DomainTarget = { domain: 'pool' } | { domain: DomainScopeKind; scope: BreakerScope };

const MODEL_CODES: ReadonlySet<string> = new Set([
  'model_not_found',
  'model_not_available',
  'model_overloaded',
  'model_unavailable',
]);

function scoped(kind: DomainScopeKind, value: string | undefined): DomainTarget | null {
  if (value === undefined || scopeProblem(kind, value) !== null) return null;
  return { domain: kind, scope: { kind, value } };
}

/**
 * The domain an outcome speaks about, before the pool's declaration widens it:
 * 401/403 (auth) → the credential; a model-specific error code → the model; a quota 429 → the pool;
 * an endpoint's 5xx, timeout or network failure → the endpoint (its region, then the pool, when the
 * call has no narrower label). Success, client errors and cancellations say nothing (null); so does
 * an auth failure on a call that names no credential (it must never open anything wider).
 */
export function outcomeDomain(call: CallFailure, labels: CallLabels): DomainTarget | null {
  const { outcome } = call;
  if (outcome === 'success' || outcome === 'client_error' || outcome === 'cancelled') {
    // a 404 naming a missing model is the model's fault, not the caller's request
    if (outcome === 'client_error' && call.errorCode !== undefined && MODEL_CODES.has(call.errorCode))
      return scoped('model', labels.model);
    return null;
  }
  if (outcome === 'auth' || call.status === 401 || call.status === 403)
    return scoped('credential', labels.credentialId);
  if (call.errorCode !== undefined && MODEL_CODES.has(call.errorCode)) return scoped('model', labels.model);
  if (outcome === 'rate_limited') return { domain: 'pool' };
  // overload, network, slow: the path to one endpoint
  return scoped('endpoint', labels.endpoint) ?? scoped('region', labels.region) ?? { domain: 'pool' };
}

// narrow to wide: an infrastructure outcome widens to the pool's declared domain
const INFRA_WIDTH: Record<'endpoint' | 'region' | 'provider', number> = {
  endpoint: 0,
  region: 1,
  provider: 2,
};

/**
 * The breaker scope an outcome moves, given the pool's declared failure domain: credential and
 * model targets stay theirs whatever the pool says; an endpoint or region target widens to the
 * pool's domain when that is wider (a `provider` pool has one global quota: every infrastructure
 * fault is the group's); the pool target is the group. Null: the outcome moves no breaker.
 */
export function breakerScopeFor(
  target: DomainTarget | null,
  poolDomain: FailureDomain,
  labels: CallLabels,
): BreakerScope | null {
  if (target === null) return null;
  if (target.domain === 'pool') return GROUP_SCOPE;
  if (target.domain === 'credential' || target.domain === 'model') return target.scope;
  const declared = poolDomain === 'credential' || poolDomain === 'model' ? 'endpoint' : poolDomain;
  const width = Math.max(INFRA_WIDTH[target.domain], INFRA_WIDTH[declared]);
  if (width === INFRA_WIDTH.endpoint) return target.scope;
  if (
    width === INFRA_WIDTH.region &&
    labels.region !== undefined &&
    scopeProblem('region', labels.region) === null
  )
    return { kind: 'region', value: labels.region };
  return GROUP_SCOPE;
}
