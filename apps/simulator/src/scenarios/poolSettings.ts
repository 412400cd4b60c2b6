// The pool settings an operator may give a run (`--pool '{"ramp":{"shedsCleanly":true}}'`): its
// probe and ramp sections, validated as the controller validates a PUT pool body, laid over the pool
// the recloser strategies size to the provider (the capacity stays the provider's).
import { mergePool, validatePoolInput, type PoolConfig, type PoolInput } from '@recloser/core';

export type PoolSettings = Pick<PoolInput, 'probe' | 'ramp'>;

const SECTIONS = ['probe', 'ramp'];

/** `text` as pool settings; an error naming `flag` and every field that is wrong. */
export function parsePoolSettings(flag: string, text: string): PoolSettings {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: refused below with anything else that is not an object
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${flag} must be a JSON object, e.g. '{"ramp":{"shedsCleanly":true}}'`);
  const other = Object.keys(parsed).filter((k) => !SECTIONS.includes(k));
  if (other.length > 0)
    throw new Error(
      `${flag}: ${other.join(', ')} cannot be set (only ${SECTIONS.join(' and ')}: the capacity is sized to the provider)`,
    );
  const checked = validatePoolInput({ dependencies: ['simulated'], ...parsed });
  if (!checked.ok) throw new Error(`${flag}: ${checked.errors.join('; ')}`);
  return parsed as PoolSettings;
}

/** `pool` with `settings` laid over it: its id, dependencies and capacity (and class order) kept. */
export function withPoolSettings(pool: PoolConfig, settings: PoolSettings | undefined): PoolConfig {
  if (!settings) return pool;
  const ramp = settings.ramp ? { ...settings.ramp, classOrder: pool.ramp.classOrder } : undefined;
  const body = mergePool(
    { ...(settings.probe ? { probe: settings.probe } : {}), ...(ramp ? { ramp } : {}) },
    pool,
  );
  return { ...body, id: pool.id };
}
