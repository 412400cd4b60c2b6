// The Lua scripts behind the probe lease store. Each runs atomically inside Redis, on the Redis
// server's clock (TIME), so every controller replica sees one budget and one notion of "now".
// The grant rule is core `decideProbeGrant`, transcribed: a lease is live while now < expiresAt,
// a grant counts against the rate while grantedAt > now - 1000. test/recovery/lease-rule-equivalence
// runs random sequences through both and compares.

/** Shared prologue: the Redis server's clock in milliseconds. */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Shared: drop a pool's expired leases. An instance whose lease expired unused is excluded from
 * designation for the rest of that epoch (set root..'excluded:'..breakerId..':'..epoch), so the
 * duty moves to another instance. Returns how many leases expired.
 */
const SWEEP = `
local function sweep(leasesKey, root, now)
  local expired = redis.call('ZRANGEBYSCORE', leasesKey, '-inf', now)
  for _, tok in ipairs(expired) do
    local f = redis.call('HMGET', root .. 'token:' .. tok, 'breakerId', 'instanceId', 'epoch')
    if f[1] then
      local ex = root .. 'excluded:' .. f[1] .. ':' .. f[3]
      redis.call('SADD', ex, f[2])
      redis.call('PEXPIRE', ex, 3600000)
      redis.call('DEL', root .. 'token:' .. tok)
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', leasesKey, '-inf', now) end
  return #expired
end
`;

/**
 * Grant (or re-deliver) a probe token.
 * KEYS: 1 leases zset (token -> expiresAt), 2 grants zset (fencing -> grantedAt), 3 fence hash
 *       {next, ceiling}, 4 alive marker, 5 blocked-until, 6 holder (breaker+instance -> token),
 *       7 lease hash of the new token
 * ARGV: 1 concurrency, 2 ratePerSec, 3 leaseTtlMs, 4 token, 5 pool, 6 breakerId, 7 instanceId,
 *       8 epoch, 9 only re-deliver (1: never grant a new token), 10 the store's key root,
 *       11 the group's fair share of the pool (0: none; core probeFairShare), 12 the breaker's group
 * Returns one of:
 *   {'lost'}                                   the marker is gone: Redis lost its data
 *   {'need_block'}                             the fencing block is used up (or lost)
 *   {'held', token, fencing, expiresAt, now}   the instance already holds a live token
 *   {'granted', token, fencing, expiresAt, now}
 *   {'refused', reason, retryAfterMs, now}     reason: learning | concurrency | fair_share | rate
 *   {'none', now}                              re-deliver only, and nothing is held
 */
export const GRANT_SCRIPT = `${NOW}${SWEEP}
if redis.call('EXISTS', KEYS[4]) == 0 then return {'lost'} end
sweep(KEYS[1], ARGV[10], now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 1000)
local held = redis.call('GET', KEYS[6])
if held then
  local exp = redis.call('ZSCORE', KEYS[1], held)
  if exp then
    -- a token of an older epoch still counts against the budget, but its result would be stale
    local f = redis.call('HMGET', ARGV[10] .. 'token:' .. held, 'fencing', 'epoch')
    if f[1] and f[2] == ARGV[8] then return {'held', held, tonumber(f[1]), tonumber(exp), now} end
  end
end
if ARGV[9] == '1' then return {'none', now} end
local concurrency = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local blocked = tonumber(redis.call('GET', KEYS[5]) or '0')
if now < blocked then return {'refused', 'learning', blocked - now, now} end
local live = redis.call('ZCARD', KEYS[1])
if live >= concurrency then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {'refused', 'concurrency', tonumber(first[2]) - now, now}
end
local cap = tonumber(ARGV[11] or '0')
if cap > 0 then
  -- the pool's leases are all live after the sweep; count this group's and its first expiry
  local mine, first = 0, nil
  local live = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 1, #live, 2 do
    if redis.call('HGET', ARGV[10] .. 'token:' .. live[i], 'group') == ARGV[12] then
      mine = mine + 1
      local exp = tonumber(live[i + 1])
      if not first or exp < first then first = exp end
    end
  end
  if mine >= cap then return {'refused', 'fair_share', first - now, now} end
end
local recent = redis.call('ZCARD', KEYS[2])
if recent >= rate then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'refused', 'rate', tonumber(oldest[2]) + 1000 - now, now}
end
local nxt = tonumber(redis.call('HGET', KEYS[3], 'next') or '0')
local ceiling = tonumber(redis.call('HGET', KEYS[3], 'ceiling') or '0')
if nxt == 0 or nxt > ceiling then return {'need_block'} end
redis.call('HSET', KEYS[3], 'next', nxt + 1)
local expiresAt = now + ttl
redis.call('ZADD', KEYS[1], expiresAt, ARGV[4])
redis.call('ZADD', KEYS[2], now, tostring(nxt))
redis.call('HSET', KEYS[7], 'pool', ARGV[5], 'breakerId', ARGV[6], 'instanceId', ARGV[7],
  'fencing', nxt, 'expiresAt', expiresAt, 'epoch', ARGV[8], 'group', ARGV[12])
-- the token's facts outlive its lease by a minute, so the sweep can tell whose lease expired unused
redis.call('PEXPIRE', KEYS[7], ttl + 60000)
redis.call('SET', KEYS[6], ARGV[4], 'PX', ttl)
redis.call('PEXPIRE', KEYS[2], 2000)
return {'granted', ARGV[4], nxt, expiresAt, now}
`;

/**
 * Drop a pool's expired leases (the lease-expiry job; grants sweep as well).
 * KEYS: 1 leases zset. ARGV: 1 the store's key root. Returns how many expired.
 */
export const SWEEP_SCRIPT = `${NOW}${SWEEP}
return sweep(KEYS[1], ARGV[1], now)
`;

/**
 * Give back every live token a breaker holds (it left PROBING: their results would be stale, and in
 * a pool shared by several breakers they would block the others' probes until they expire).
 * KEYS: 1 leases zset of the pool. ARGV: 1 the store's key root, 2 breakerId. Returns how many.
 */
export const RELEASE_BREAKER_SCRIPT = `
local released = 0
for _, tok in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[1] .. 'token:' .. tok
  local f = redis.call('HMGET', key, 'breakerId', 'instanceId')
  if f[1] == ARGV[2] then
    redis.call('ZREM', KEYS[1], tok)
    redis.call('DEL', key)
    local holder = ARGV[1] .. 'holder:' .. f[1] .. ':' .. f[2]
    if redis.call('GET', holder) == tok then redis.call('DEL', holder) end
    released = released + 1
  end
end
return released
`;

/**
 * Install a fencing block reserved in Postgres, if the current one is used up. Blocks come from
 * Postgres in strictly increasing order, so `next` only ever moves up.
 * KEYS: 1 fence hash. ARGV: 1 first number of the block, 2 last number of the block.
 */
export const INSTALL_BLOCK_SCRIPT = `
local nxt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
local ceiling = tonumber(redis.call('HGET', KEYS[1], 'ceiling') or '0')
if nxt ~= 0 and nxt <= ceiling then return 0 end
local first = tonumber(ARGV[1])
if nxt < first then nxt = first end
redis.call('HSET', KEYS[1], 'next', nxt, 'ceiling', tonumber(ARGV[2]))
return 1
`;

/**
 * Re-arm a pool after Redis lost its data (or on first use). If Postgres says tokens may have been
 * granted before, nothing new is granted for one lease TTL: the store cannot know what is held.
 * KEYS: 1 alive marker, 2 blocked-until. ARGV: 1 may have leases (1/0), 2 leaseTtlMs.
 * Returns the blocked-until time (0 when not blocked), or -1 when another replica armed it first.
 */
export const ARM_SCRIPT = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
redis.call('SET', KEYS[1], now)
if ARGV[1] == '1' then
  local ttl = tonumber(ARGV[2])
  redis.call('SET', KEYS[2], now + ttl, 'PX', ttl)
  return now + ttl
end
return 0
`;

/**
 * Look a token up and, when `release` is 1, give it back. A token is valid while it is in its
 * pool's leases set with expiresAt > now; expired, released or lost tokens are gone.
 * KEYS: 1 lease hash. ARGV: 1 token, 2 release (1/0), 3 the store's key prefix (the pool's
 * leases set and the holder key are named from the hash's fields, see probe-lease.keys.ts).
 * Returns {'valid', pool, breakerId, instanceId, fencing, expiresAt, epoch, now} or {'gone', now}.
 */
export const CHECK_SCRIPT = `${NOW}
local f = redis.call('HMGET', KEYS[1], 'pool', 'breakerId', 'instanceId', 'fencing', 'expiresAt', 'epoch')
if not f[1] then return {'gone', now} end
local leases = ARGV[3] .. 'pool:' .. f[1] .. ':leases'
local holder = ARGV[3] .. 'holder:' .. f[2] .. ':' .. f[3]
local exp = tonumber(f[5])
local live = redis.call('ZSCORE', leases, ARGV[1])
if exp <= now or not live then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', leases, ARGV[1])
  return {'gone', now}
end
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', leases, ARGV[1])
  if redis.call('GET', holder) == ARGV[1] then redis.call('DEL', holder) end
end
return {'valid', f[1], f[2], f[3], tonumber(f[4]), exp, tonumber(f[6]), now}
`;
