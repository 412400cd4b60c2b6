// Where the probe lease store keeps things in Redis. The Lua scripts build the pool and holder
// keys from the same layout (CHECK_SCRIPT), so change both together.
export class ProbeLeaseKeys {
  /** `prefix` is the controller's Redis key prefix; tests pass their own. */
  constructor(private readonly prefix: string) {}

  /** Prefix of every key below, as the Lua scripts see it. */
  get root(): string {
    return `${this.prefix}probe:`;
  }

  /** zset token -> expiresAt (ms, Redis clock): the live leases of a pool */
  leases(pool: string): string {
    return `${this.root}pool:${pool}:leases`;
  }

  /** zset fencing -> grantedAt: grants of the last second, for the rate limit */
  grants(pool: string): string {
    return `${this.root}pool:${pool}:grants`;
  }

  /** hash {next, ceiling}: the fencing block reserved in Postgres that grants draw from */
  fence(pool: string): string {
    return `${this.root}pool:${pool}:fence`;
  }

  /** present while Redis still holds this pool's lease data; its absence means data was lost */
  alive(pool: string): string {
    return `${this.root}pool:${pool}:alive`;
  }

  /** no grant before this time (ms, Redis clock): the learning period after data loss */
  blocked(pool: string): string {
    return `${this.root}pool:${pool}:blocked`;
  }

  /** the token an instance holds for a breaker, so it is re-delivered rather than doubled */
  holder(breakerId: string, instanceId: string): string {
    return `${this.root}holder:${breakerId}:${instanceId}`;
  }

  /** set of instances whose lease expired unused in this epoch (named the same in the Lua SWEEP) */
  excluded(breakerId: string, epoch: number): string {
    return `${this.root}excluded:${breakerId}:${epoch}`;
  }

  /** hash of one token: pool, breakerId, instanceId, fencing, expiresAt, epoch */
  token(token: string): string {
    return `${this.root}token:${token}`;
  }
}
