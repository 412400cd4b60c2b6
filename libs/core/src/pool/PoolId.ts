// Pool ids: chosen by operators in the URL, except the pools of dependencies nobody configured,
// which are named after the dependency under a reserved prefix.
import { IDENTIFIER_MAX } from '../input/InputRules.js';

const DEFAULT_POOL_PREFIX = 'default:';
// an identifier (InputRules) without ":", "@" or "/", so it needs no escaping in a path
const POOL_ID_SHAPE = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${IDENTIFIER_MAX - 1}}$`);

export function defaultPoolId(dependency: string): string {
  return `${DEFAULT_POOL_PREFIX}${dependency}`;
}

/** Why `id` cannot name an operator's pool, or null when it can. */
export function poolIdProblem(id: string): string | null {
  if (id.startsWith(DEFAULT_POOL_PREFIX))
    return `id: "${DEFAULT_POOL_PREFIX}" is reserved for the pools of unconfigured dependencies`;
  if (!POOL_ID_SHAPE.test(id))
    return `id: must be 1-${IDENTIFIER_MAX} characters of letters, digits, ".", "_" or "-", starting with a letter or digit`;
  return null;
}
