// One division of a ramp step per allowance period, shared by every heartbeat and every replica.
// Dividing on each heartbeat read the whole fleet's demand each time (O(N) per heartbeat, O(N²) per
// period) and let replicas divide slightly different snapshots, so their shares could sum above the
// step. Here the first heartbeat of a period (breaker, epoch, step, period) divides, the result is
// stored in one Redis hash (instance → allowance), and later heartbeats read their own field.
// The division itself stays core `divideAllowances`: this file only decides how often it runs.
import { Inject, Injectable } from '@nestjs/common';
import type { Allowance, Division, DivisionKey, DivisionStore } from '@recloser/control';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { LuaScript } from '../redis/lua-script.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

/** sealed divisions kept in memory (a few periods of a few hundred ramping breakers) */
const MAX_SEALED_KEPT = 1000;
// instance fields carry a prefix so no instance id can collide with the marker
const SEALED = 'sealed';
const field = (instanceId: string) => `i:${instanceId}`;

// stores the division unless one is stored already (first writer wins across replicas), in one step,
// so a reader sees either no division or a whole one; fields are set one by one (no unpack of N args)
const STORE_ONCE = new LuaScript(`
if redis.call('HEXISTS', KEYS[1], '${SEALED}') == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], '${SEALED}', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);

@Injectable()
/** The control layer's DivisionStore on Redis. */
export class AllowanceDivisionCache implements DivisionStore {
  private readonly prefix: string;
  // concurrent first heartbeats on this replica share one division instead of each dividing
  private readonly storing = new Map<string, Promise<void>>();
  /**
   * Sealed divisions as read back from Redis, by key: a sealed division never changes, so once this
   * replica has one, the period's other heartbeats are answered without a round trip.
   */
  private readonly sealed = new Map<string, Promise<Map<string, string>>>();

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.prefix = `${config.redisPrefix}:allowance:`;
  }

  private key(k: DivisionKey): string {
    return `${this.prefix}${k.breakerId}:${k.epoch}:${k.step}:${k.period}`;
  }

  /**
   * The instance's share of the period's division; `divide` runs only when the period has none yet.
   * An instance absent from the stored division (it appeared after the division, or wants nothing)
   * gets `{}` until the next period: a period's division is fixed, so the shares handed out in it
   * are the ones core divided and their sum never exceeds the step's budget.
   */
  async allowanceOf(
    k: DivisionKey,
    instanceId: string,
    periodMs: number,
    divide: () => Promise<Division>,
  ): Promise<Allowance> {
    const key = this.key(k);
    const known = this.sealed.get(key);
    if (known) return parse((await known).get(field(instanceId)) ?? null);
    const [sealed, own] = await this.redis.hmget(key, SEALED, field(instanceId));
    if (sealed !== null) {
      this.remember(key);
      return parse(own);
    }
    let storing = this.storing.get(key);
    if (!storing) {
      storing = this.store(key, periodMs, divide).finally(() => this.storing.delete(key));
      this.storing.set(key, storing);
    }
    await storing;
    // read back, not our own result: another replica may have stored its division first
    return parse((await this.remember(key)).get(field(instanceId)) ?? null);
  }

  /** Reads the sealed division whole, once, and keeps it for the rest of its period. */
  private remember(key: string): Promise<Map<string, string>> {
    let known = this.sealed.get(key);
    if (!known) {
      // keys name their period: the newest few are all that is ever asked for again
      if (this.sealed.size >= MAX_SEALED_KEPT) this.sealed.delete(this.sealed.keys().next().value!);
      known = this.redis.hgetall(key).then((all) => new Map(Object.entries(all)));
      known.catch(() => this.sealed.delete(key));
      this.sealed.set(key, known);
    }
    return known;
  }

  private async store(key: string, periodMs: number, divide: () => Promise<Division>): Promise<void> {
    const division = await divide();
    // the key names its period, so it is never reused. A next window's division is stored up to two
    // heartbeat intervals before its period begins (core rotationAt): three periods of life cover
    // that period, and a replica whose clock runs a little behind, then Redis drops it
    const args: (string | number)[] = [Math.max(1, Math.ceil(periodMs * 3))];
    for (const [instanceId, allowance] of division) args.push(field(instanceId), JSON.stringify(allowance));
    await STORE_ONCE.run(this.redis, [key], args);
  }
}

function parse(raw: string | null): Allowance {
  return raw === null ? {} : (JSON.parse(raw) as Allowance);
}
