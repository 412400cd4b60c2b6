// Probe tokens for one provider pool, shared by every controller replica: a lease store in Redis
// whose grant rule is core `decideProbeGrant`, applied atomically by a Lua script on the Redis
// server's clock. Fencing numbers come from blocks reserved in Postgres (durable high-water mark);
// a marker key tells the store when Redis lost its data, and then it grants nothing for one lease TTL.
// Assumes Redis loses lease data whole (restart without persistence): a Redis restored from an older
// snapshot keeps its marker and could re-issue numbers of its last block, so run the lease Redis
// without RDB/AOF (or with appendfsync always).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type {
  LeaseInfo,
  LeaseRequest,
  LeaseStore,
  LeaseOutcome as ControlLeaseOutcome,
} from '@recloser/control';
import type { ProbeRefusalReason } from '@recloser/core';
import type { FencingBlocks } from '../pools/fencing.repository.js';
import { LuaScript } from '../redis/lua-script.js';
import { ProbeLeaseKeys } from './probe-lease.keys.js';
import {
  ARM_SCRIPT,
  CHECK_SCRIPT,
  GRANT_SCRIPT,
  INSTALL_BLOCK_SCRIPT,
  RELEASE_BREAKER_SCRIPT,
  SWEEP_SCRIPT,
} from './probe-lease.scripts.js';

export type { LeaseInfo, LeaseRequest };

/** The control layer's outcome plus `now`: the Redis server's clock when the script decided (ms). */
export type LeaseOutcome = ControlLeaseOutcome & { now: number };

export class LeaseStoreUnavailableError extends Error {
  override readonly name = 'LeaseStoreUnavailableError';
}

const grantScript = new LuaScript(GRANT_SCRIPT);
const installBlockScript = new LuaScript(INSTALL_BLOCK_SCRIPT);
const armScript = new LuaScript(ARM_SCRIPT);
const checkScript = new LuaScript(CHECK_SCRIPT);
const sweepScript = new LuaScript(SWEEP_SCRIPT);
const releaseBreakerScript = new LuaScript(RELEASE_BREAKER_SCRIPT);

// tokens are 24 random bytes in base64url: anything else is not ours and is simply unknown
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;
// a grant needs at most: re-arm after data loss, then reserve a fencing block; more means a race
// with data loss repeating, and the caller gets a 503 rather than a loop
const MAX_ATTEMPTS = 6;

/** The control layer's LeaseStore on Redis. */
export class ProbeLeaseStore implements LeaseStore {
  readonly keys: ProbeLeaseKeys;

  constructor(
    private readonly redis: Redis,
    private readonly fencing: FencingBlocks,
    keyPrefix: string,
  ) {
    this.keys = new ProbeLeaseKeys(keyPrefix);
  }

  /** Grant a token under the pool's budget, or hand back the one this instance already holds. */
  grant(req: LeaseRequest): Promise<LeaseOutcome> {
    return this.run(req, false);
  }

  /** Only the token this instance already holds for this breaker, if any: never a new grant. */
  held(req: LeaseRequest): Promise<LeaseOutcome> {
    return this.run(req, true);
  }

  /** The live token's facts, or null when it expired, was released, was lost or never existed. */
  check(token: string): Promise<LeaseInfo | null> {
    return this.lookup(token, false);
  }

  /** Give a token back (its result was reported). Null when it was no longer valid. */
  release(token: string): Promise<LeaseInfo | null> {
    return this.lookup(token, true);
  }

  /** Drops the pool's expired leases; returns how many expired unused. */
  async sweep(pool: string): Promise<number> {
    return Number(await sweepScript.run(this.redis, [this.keys.leases(pool)], [this.keys.root]));
  }

  /** Gives back every live token of a breaker (it left PROBING); returns how many. */
  async releaseBreaker(pool: string, breakerId: string): Promise<number> {
    return Number(
      await releaseBreakerScript.run(this.redis, [this.keys.leases(pool)], [this.keys.root, breakerId]),
    );
  }

  /** Pools that may hold leases: every pool that ever reserved fencing numbers. */
  pools(): Promise<string[]> {
    return this.fencing.pools();
  }

  /** Instances whose lease for this breaker expired unused in this epoch: designate someone else. */
  async excluded(breakerId: string, epoch: number): Promise<string[]> {
    return this.redis.smembers(this.keys.excluded(breakerId, epoch));
  }

  private async run(req: LeaseRequest, onlyRedeliver: boolean): Promise<LeaseOutcome> {
    const { pool, budget } = req;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const token = randomBytes(24).toString('base64url');
      const reply = (await grantScript.run(
        this.redis,
        [
          this.keys.leases(pool),
          this.keys.grants(pool),
          this.keys.fence(pool),
          this.keys.alive(pool),
          this.keys.blocked(pool),
          this.keys.holder(req.breakerId, req.instanceId),
          this.keys.token(token),
        ],
        [
          budget.concurrency,
          budget.ratePerSec,
          budget.leaseTtlMs,
          token,
          pool,
          req.breakerId,
          req.instanceId,
          req.epoch,
          onlyRedeliver ? 1 : 0,
          this.keys.root,
          req.fairShareCap ?? 0,
          req.group,
        ],
      )) as [string, ...(string | number)[]];
      switch (reply[0]) {
        case 'lost':
          await this.arm(pool, budget.leaseTtlMs);
          continue;
        case 'need_block':
          await this.installBlock(pool);
          continue;
        case 'granted':
        case 'held': {
          const [, tok, fencing, expiresAt, now] = reply as [string, string, number, number, number];
          return { kind: reply[0], token: tok, fencing, expiresAt, validForMs: expiresAt - now, now };
        }
        case 'refused': {
          const [, reason, retryAfterMs, now] = reply as [string, ProbeRefusalReason, number, number];
          return { kind: 'refused', reason, retryAfterMs, now };
        }
        case 'none':
          return { kind: 'none', now: Number(reply[1]) };
        default:
          throw new Error(`probe lease script answered ${String(reply[0])}`);
      }
    }
    throw new LeaseStoreUnavailableError(`probe lease store for pool ${pool} kept losing its data`);
  }

  /** After data loss (or on first use): block grants for one TTL if tokens may still be held. */
  private async arm(pool: string, leaseTtlMs: number): Promise<void> {
    const mayHaveLeases = await this.fencing.mayHaveLeases(pool);
    await armScript.run(
      this.redis,
      [this.keys.alive(pool), this.keys.blocked(pool)],
      [mayHaveLeases ? 1 : 0, leaseTtlMs],
    );
  }

  private async installBlock(pool: string): Promise<void> {
    const block = await this.fencing.reserve(pool);
    await installBlockScript.run(this.redis, [this.keys.fence(pool)], [block.first, block.last]);
  }

  private async lookup(token: string, release: boolean): Promise<LeaseInfo | null> {
    if (!TOKEN_SHAPE.test(token)) return null;
    const reply = (await checkScript.run(
      this.redis,
      [this.keys.token(token)],
      [token, release ? 1 : 0, this.keys.root],
    )) as [string, ...(string | number)[]];
    if (reply[0] !== 'valid') return null;
    const [, pool, breakerId, instanceId, fencing, expiresAt, epoch, now] = reply as [
      string,
      string,
      string,
      string,
      number,
      number,
      number,
      number,
    ];
    return { token, pool, breakerId, instanceId, fencing, epoch, expiresAt, validForMs: expiresAt - now };
  }
}
