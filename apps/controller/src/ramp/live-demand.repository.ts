// What the live instances of a breaker want: the demand in their latest verdicts. Read by every
// heartbeat of a probing breaker (and by the first of each allowance period of a ramping one), so
// each replica keeps it for a fraction of a heartbeat.
import { Injectable } from '@nestjs/common';
import type { TrafficClass } from '@recloser/core';
import { VerdictsRepository } from '../breakers/verdicts.repository.js';
import { ControllerConfig } from '../config/controller-config.js';

export interface LiveDemand {
  instanceId: string;
  demand: Record<TrafficClass, number>;
}

const CACHE_MS = 500;

@Injectable()
export class LiveDemandRepository {
  private readonly cache = new Map<string, { at: number; rows: Promise<LiveDemand[]> }>();

  constructor(
    private readonly verdicts: VerdictsRepository,
    private readonly config: ControllerConfig,
  ) {}

  /** Instances with a fresh verdict for the breaker, and the demand they reported (empty when none). */
  live(breakerId: string, now = Date.now()): Promise<LiveDemand[]> {
    const hit = this.cache.get(breakerId);
    if (hit && now - hit.at < CACHE_MS) return hit.rows;
    const rows = this.load(breakerId, now);
    this.cache.set(breakerId, { at: now, rows });
    rows.catch(() => this.cache.delete(breakerId));
    if (this.cache.size > 10_000) this.cache.clear();
    return rows;
  }

  private async load(breakerId: string, now: number): Promise<LiveDemand[]> {
    const rows = await this.verdicts.rows(breakerId, now - this.config.heartbeatTtlMs);
    return rows.map((r) => ({ instanceId: r.instanceId, demand: numericDemand(r.demand) }));
  }
}

function numericDemand(raw: Record<string, unknown> | null): Record<TrafficClass, number> {
  const out: Record<TrafficClass, number> = {};
  for (const [cls, v] of Object.entries(raw ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[cls] = v;
  }
  return out;
}
