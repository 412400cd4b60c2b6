// Pool ids: chosen by operators in the URL, except the pools of dependencies nobody configured,
// which are named after the dependency under a reserved prefix.
const DEFAULT_POOL_PREFIX = 'default:';
const POOL_ID_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function defaultPoolId(dependency: string): string {
  return `${DEFAULT_POOL_PREFIX}${dependency}`;
}

/** Why `id` cannot name an operator's pool, or null when it can. */
export function poolIdProblem(id: string): string | null {
  if (id.startsWith(DEFAULT_POOL_PREFIX))
    return `id: "${DEFAULT_POOL_PREFIX}" is reserved for the pools of unconfigured dependencies`;
  if (!POOL_ID_SHAPE.test(id))
    return 'id: must be 1-128 characters of letters, digits, ".", "_" or "-", starting with a letter or digit';
  return null;
}
