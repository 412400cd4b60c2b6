// What one breaker covers: the whole group (the global breaker every heartbeat drives), or one
// failure domain inside it (a region today; an endpoint, a model or a credential later), so
// narrower breakers and their quorum figures can live beside the group's without a new schema.
// Stored as two columns (kind, value); written as text ("group", "region:eu-west") in logs and URLs.

export const SCOPE_KINDS = ['group', 'region', 'endpoint', 'model', 'credential'] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];
/** the kinds that name one failure domain inside the group */
export type DomainScopeKind = Exclude<ScopeKind, 'group'>;

/** The whole group has no value; every other kind names exactly one domain. */
export type BreakerScope = { kind: 'group'; value: '' } | { kind: DomainScopeKind; value: string };

export const GROUP_SCOPE: BreakerScope = Object.freeze({ kind: 'group', value: '' });

const MAX_SCOPE_VALUE = 200;
// printable, no surrounding blanks: the value shows in URLs, logs and operator views as it is
const CONTROL = /[\u0000-\u001f\u007f]/;

export function regionScope(region: string): BreakerScope {
  return checked({ kind: 'region', value: region });
}

/** The region a breaker covers, or null when its scope is not one region. */
export function regionOf(scope: BreakerScope): string | null {
  return scope.kind === 'region' ? scope.value : null;
}

export function isGroupScope(scope: BreakerScope): boolean {
  return scope.kind === 'group';
}

export function isScopeKind(kind: string): kind is ScopeKind {
  return (SCOPE_KINDS as readonly string[]).includes(kind);
}

/** Why (kind, value) is not a scope, or null when it is. */
export function scopeProblem(kind: string, value: string): string | null {
  if (!isScopeKind(kind)) return `scope: kind must be one of ${SCOPE_KINDS.join(', ')} (got "${kind}")`;
  if (kind === 'group') return value === '' ? null : 'scope: the group scope has no value';
  if (value === '') return `scope: a ${kind} scope needs a value`;
  if (value.length > MAX_SCOPE_VALUE) return `scope: value longer than ${MAX_SCOPE_VALUE} characters`;
  if (value.trim() !== value) return 'scope: value has leading or trailing blanks';
  if (CONTROL.test(value)) return 'scope: value has control characters';
  return null;
}

/** The scope stored as (kind, value); throws on a pair that is not one (the row was not written by us). */
export function scopeOf(kind: string, value: string): BreakerScope {
  return checked({ kind, value } as BreakerScope);
}

/** "group" or "<kind>:<value>" (the value may itself contain ":"). */
export function formatScope(scope: BreakerScope): string {
  return scope.kind === 'group' ? 'group' : `${scope.kind}:${scope.value}`;
}

/** The inverse of formatScope; throws an Error saying what is wrong. */
export function parseScope(text: string): BreakerScope {
  if (text === 'group') return GROUP_SCOPE;
  const colon = text.indexOf(':');
  if (colon < 0) throw new Error(`scope: "${text}" is neither "group" nor "<kind>:<value>"`);
  return scopeOf(text.slice(0, colon), text.slice(colon + 1));
}

export function sameScope(a: BreakerScope, b: BreakerScope): boolean {
  return a.kind === b.kind && a.value === b.value;
}

function checked(scope: BreakerScope): BreakerScope {
  const problem = scopeProblem(scope.kind, scope.value);
  if (problem) throw new Error(problem);
  return scope.kind === 'group' ? GROUP_SCOPE : { kind: scope.kind, value: scope.value };
}
