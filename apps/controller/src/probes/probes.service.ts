// Probe tokens on demand (POST /v1/probes/lease) and probe results (POST /v1/probes/{token}/result).
// The budget is the pool's, enforced by the Redis lease store (core decideProbeGrant in Lua); the
// result feeds core onProbeResult through the breaker's locked transition.
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { mathRng, onProbeResult } from '@recloser/core';
import { Repository } from 'typeorm';
import { assertGroupAllowed, type FleetPrincipal } from '../auth/fleet-principal.js';
import { BreakerStateService } from '../breakers/breaker-state.service.js';
import { BreakerEntity, WHOLE_GROUP } from '../breakers/breaker.entity.js';
import { PoolsService } from '../pools/pools.service.js';
import { RAMP_TICK_MS } from '../ramp/ramp-tick.handler.js';
import type { LeaseProbeDto, ProbeLeaseDto } from './dto/lease-probe.dto.js';
import type { ProbeResultAcceptedDto, ProbeResultDto } from './dto/probe-result.dto.js';
import { ProbeLeaseStore, type LeaseInfo, type LeaseOutcome } from './probe-lease.store.js';
import { RetryLaterException } from './retry-later.exception.js';

// what a client waits before asking again when the lease store (Redis) does not answer
const STORE_DOWN_RETRY_MS = 1000;

const REFUSALS: Record<'learning' | 'concurrency' | 'rate', string> = {
  learning:
    'probe budget is frozen: the lease store lost its data and waits one lease TTL before granting again',
  concurrency: 'probe budget exhausted: the pool already has its maximum of live probe tokens',
  rate: 'probe budget exhausted: the pool granted its maximum of probe tokens in the last second',
};

@Injectable()
export class ProbesService {
  constructor(
    @InjectRepository(BreakerEntity) private readonly breakers: Repository<BreakerEntity>,
    private readonly pools: PoolsService,
    private readonly leases: ProbeLeaseStore,
    private readonly breakerState: BreakerStateService,
  ) {}

  /**
   * Only a PROBING breaker leases tokens. OPEN answers 429 with the time left in its cooldown (ask
   * again then), or 409 when an operator holds it open; CLOSED and RAMPING answer 409 (there is
   * nothing to probe: call normally, or within the allowance).
   */
  async lease(dto: LeaseProbeDto): Promise<ProbeLeaseDto> {
    const breaker = await this.findBreaker(dto.group, dto.dependency);
    if (breaker.state === 'open' && breaker.globalState.operatorHold) {
      throw new ConflictException(
        `breaker for dependency "${dto.dependency}" is held open by an operator: no probing until resume_ramp or force_close`,
      );
    }
    if (breaker.state === 'open') {
      const left = Math.max(0, (breaker.globalState.cooldownUntil ?? 0) - Date.now());
      // PROBING begins at the first ramp tick after the cooldown: asking sooner than a tick is wasted
      throw new RetryLaterException(
        429,
        `breaker for dependency "${dto.dependency}" is open and cooling down; probing starts in about ${Math.round(left)} ms`,
        Math.max(left, RAMP_TICK_MS),
        { state: 'open' },
      );
    }
    if (breaker.state !== 'probing') {
      throw new ConflictException(
        `breaker for dependency "${dto.dependency}" is ${breaker.state}: probe tokens are leased only while it is probing`,
      );
    }
    const pool = await this.pools.resolve(dto.dependency);
    const got = await this.storeCall(() =>
      this.leases.grant({
        pool: pool.id,
        budget: pool.probe,
        breakerId: breaker.id,
        instanceId: dto.instanceId,
        epoch: breaker.epoch,
      }),
    );
    return this.toLease(got);
  }

  /**
   * Releases the token and hands the outcome to core onProbeResult under the breaker's lock. A
   * result from an older epoch changes nothing (core ignores it); the token is released either way.
   */
  async reportResult(
    principal: FleetPrincipal,
    token: string,
    dto: ProbeResultDto,
  ): Promise<ProbeResultAcceptedDto> {
    const { lease, dependency } = await this.takeResult(principal, token);
    const pool = await this.pools.resolve(dependency);
    const outcome = await this.breakerState.transition(lease.breakerId, (state, ctx) =>
      onProbeResult(
        state,
        {
          outcome: dto.outcome,
          latencyMs: dto.latencyMs,
          ...(dto.ttftMs !== undefined ? { ttftMs: dto.ttftMs } : {}),
          epoch: lease.epoch,
        },
        pool,
        ctx.now,
        mathRng,
      ),
    );
    if (outcome.breaker.state !== 'probing') {
      // the other probers' tokens are stale now; free the pool's slots rather than wait out their TTL
      await this.leases.releaseBreaker(pool.id, lease.breakerId).catch(() => 0);
    }
    return { state: outcome.breaker.state, epoch: outcome.breaker.epoch };
  }

  /**
   * Validates and releases the token: 409 for expired, released, lost or unknown tokens. Returns the
   * breaker's dependency too, read with its group, so the result needs no second read of the row.
   */
  private async takeResult(
    principal: FleetPrincipal,
    token: string,
  ): Promise<{ lease: LeaseInfo; dependency: string }> {
    const info = await this.storeCall(() => this.leases.check(token));
    if (!info) throw staleToken();
    const breaker = await this.breakers.findOne({
      where: { id: info.breakerId },
      select: { id: true, group: true, dependency: true },
    });
    if (!breaker) throw staleToken();
    assertGroupAllowed(principal, breaker.group);
    const released = await this.storeCall(() => this.leases.release(token));
    if (!released) throw staleToken();
    return { lease: released, dependency: breaker.dependency };
  }

  private toLease(got: LeaseOutcome): ProbeLeaseDto {
    if (got.kind === 'granted' || got.kind === 'held') {
      return { token: got.token, fencing: got.fencing, validForMs: got.validForMs };
    }
    if (got.kind === 'refused') {
      throw new RetryLaterException(429, REFUSALS[got.reason], got.retryAfterMs, { reason: got.reason });
    }
    throw new Error('lease store answered "none" to a grant');
  }

  private async findBreaker(group: string, dependency: string): Promise<BreakerEntity> {
    const breaker = await this.breakers.findOneBy({ group, dependency, ...WHOLE_GROUP });
    if (!breaker) {
      throw new NotFoundException(
        `no breaker for group "${group}" and dependency "${dependency}": instances create it with their heartbeats`,
      );
    }
    return breaker;
  }

  /** Redis trouble becomes a quick 503 with Retry-After: clients fall back, they do not hang. */
  private async storeCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RetryLaterException) throw err;
      throw new RetryLaterException(
        503,
        `probe lease store unavailable: ${(err as Error).message}`,
        STORE_DOWN_RETRY_MS,
      );
    }
  }
}

function staleToken(): ConflictException {
  return new ConflictException(
    'probe token is not valid: it expired, was already reported, or was fenced off',
  );
}
