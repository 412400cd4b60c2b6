// The control layer's WatchStore on Redis: what was last announced per (breaker, watch), swapped
// atomically (one script), so two replicas evaluating the same watch announce a change once.
import { Inject, Injectable } from '@nestjs/common';
import type { WatchStore } from '@recloser/control';
import type { Redis } from 'ioredis';
import { ControllerConfig } from '../config/controller-config.js';
import { LuaScript } from '../redis/lua-script.js';
import { REDIS_CLIENT } from '../redis/redis.constants.js';

// KEYS: 1 the watch's set, 2 the breaker's set of non-empty watches, 3 the set of watched breakers.
// ARGV: 1 breaker id, 2 watch name, 3.. the members now. Returns { joined..., '|', left... }.
const SWAP = new LuaScript(`
local before = redis.call('SMEMBERS', KEYS[1])
local now = {}
for i = 3, #ARGV do now[ARGV[i]] = true end
local was = {}
for _, m in ipairs(before) do was[m] = true end
local joined, left = {}, {}
for i = 3, #ARGV do if not was[ARGV[i]] then table.insert(joined, ARGV[i]) end end
for _, m in ipairs(before) do if not now[m] then table.insert(left, m) end end
redis.call('DEL', KEYS[1])
if #ARGV > 2 then
  for i = 3, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[1])
else
  redis.call('SREM', KEYS[2], ARGV[2])
  if redis.call('SCARD', KEYS[2]) == 0 then redis.call('SREM', KEYS[3], ARGV[1]) end
end
local out = joined
table.insert(out, '|')
for _, m in ipairs(left) do table.insert(out, m) end
return out
`);

@Injectable()
export class RedisWatchStore implements WatchStore {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: ControllerConfig,
  ) {
    this.prefix = `${config.redisPrefix}:watch:`;
  }

  async swap(
    breakerId: string,
    watch: string,
    members: readonly string[],
  ): Promise<{ joined: string[]; left: string[] }> {
    const reply = (await SWAP.run(
      this.redis,
      [`${this.prefix}${breakerId}:${watch}`, `${this.prefix}${breakerId}`, `${this.prefix}breakers`],
      [breakerId, watch, ...new Set(members)],
    )) as string[];
    const bar = reply.indexOf('|');
    return { joined: reply.slice(0, bar).sort(), left: reply.slice(bar + 1).sort() };
  }

  async watched(): Promise<string[]> {
    return (await this.redis.smembers(`${this.prefix}breakers`)).sort();
  }
}
