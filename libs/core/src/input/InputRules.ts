// The one set of rules for strings and numbers the API takes (issue 9, "Hostile input"). The
// controller's edge applies them to every body string and key, query and path parameter; DTOs and
// core's pool validation use the per-field rules. Postgres refuses NUL and replaces lone surrogates,
// so a string that passes here is stored exactly as it was hashed and compared.

/** Longest identifier (group, instanceId, dependency, region, pool id); the controller's paths carry it. */
export const IDENTIFIER_MAX = 128;
/** Traffic class names are map keys and metric labels: shorter. */
export const TRAFFIC_CLASS_MAX = 64;
/** Durations the API takes (latencies, TTLs, cooldowns, dwell): at most a day. */
export const DAY_MS = 86_400_000;
/** Counts and rates: finite and at most this. */
export const MAX_COUNT = 1e9;

/** a lone high surrogate, or a low one without its high half: what Postgres text cannot hold */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** The string with every lone surrogate replaced by U+FFFD (as UTF-8 encoders and Postgres do). */
export function toWellFormed(s: string): string {
  return s.replace(LONE_SURROGATES, '\ufffd');
}
// C0 (incl. NUL), DEL and C1
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// bidi embeddings, overrides, isolates and marks: they make text display other than it reads
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// starts with a letter or digit (so never `__proto__`, `.` or `-x`); no spaces, quotes or controls
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;
const TRAFFIC_CLASS = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const hex = (s: string): string => `U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The rule every string at the edge obeys (values and object keys alike): well-formed Unicode,
 * no control characters. Null when `s` passes, else why not.
 */
export function stringProblem(s: string): string | null {
  const lone = LONE_SURROGATE.exec(s);
  if (lone) return `must be well-formed Unicode (lone surrogate ${hex(lone[0])} at index ${lone.index})`;
  const control = CONTROL.exec(s);
  if (control) return `must not hold control characters (${hex(control[0])} at index ${control.index})`;
  return null;
}

/** An identifier: 1-`max` letters, digits and . _ : @ / -, starting with a letter or digit. */
export function identifierProblem(v: unknown, max = IDENTIFIER_MAX): string | null {
  if (typeof v !== 'string') return 'must be a string';
  if (v.length === 0 || v.length > max) return `must be 1-${max} characters long`;
  const base = stringProblem(v);
  if (base) return base;
  if (!IDENTIFIER.test(v))
    return 'may hold only letters, digits and . _ : @ / -, starting with a letter or digit';
  return null;
}

/** A traffic class name: 1-64 letters, digits and _ . -, starting with a letter or digit. */
export function trafficClassProblem(v: unknown): string | null {
  if (typeof v !== 'string') return 'must be a string';
  if (v.length === 0 || v.length > TRAFFIC_CLASS_MAX) return `must be 1-${TRAFFIC_CLASS_MAX} characters long`;
  const base = stringProblem(v);
  if (base) return base;
  if (!TRAFFIC_CLASS.test(v))
    return 'may hold only letters, digits and _ . -, starting with a letter or digit';
  return null;
}

/** Free text (a reason, a key's name): well-formed, no control or bidi characters, not blank, at most `max`. */
export function textProblem(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return 'must be a string';
  if (v.length > max) return `must be at most ${max} characters long`;
  const base = stringProblem(v);
  if (base) return base;
  const bidi = BIDI.exec(v);
  if (bidi) return `must not hold bidi control characters (${hex(bidi[0])} at index ${bidi.index})`;
  if (v.trim() === '') return 'must not be empty or only whitespace';
  return null;
}

/** Regions a heartbeat's routed rates may name (a pool spans a handful; this bounds a hostile map). */
export const MAX_ROUTED_REGIONS = 32;

/**
 * A verdict's routed rates (issue 14): `{ region: requestsPerSecond }`, the calls the instance moved
 * to each other region over its last window. Region names are identifiers; rates finite, 0..MAX_COUNT.
 * Null when `v` passes; else why not, starting with `.<region>` when one entry is at fault.
 */
export function routedRatesProblem(v: unknown): string | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return 'must be an object of region → requests per second';
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_ROUTED_REGIONS) return `must name at most ${MAX_ROUTED_REGIONS} regions`;
  for (const [region, rate] of entries) {
    if (identifierProblem(region) !== null)
      return `has an invalid region name ${JSON.stringify(region.slice(0, 64))}`;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0)
      return `.${region} must be a non-negative number`;
    if (rate > MAX_COUNT) return `.${region} must be at most ${MAX_COUNT}`;
  }
  return null;
}
