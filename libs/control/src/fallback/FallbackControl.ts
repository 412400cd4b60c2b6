// The controller's side of FALLBACK, apart from ControlPlane so that file only calls it:
// - every heartbeat plan carries the instance's part of its breaker's fallback table (core
//   planFallback: region shares, rendezvous owners), computed once per allowance period per breaker
//   and process from the live verdict rows, so a routine heartbeat pays a map lookup;
// - for one lease TTL after the process started, an instance is granted no allowance beyond what it
//   reports holding (core capToHolding): a restarted controller may have lost track of its grants;
// - an instance's report of a fallback spell of at least one lease TTL announces `region.fallback`
//   (once per spell, region and breaker in this process: core fallbackSpell over the reporters'
//   start estimates; each replica that hears of a spell announces it once).
import {
  capToHolding,
  fallbackOf,
  fallbackSpell,
  fallbackSpellToleranceMs,
  planFallback,
  resuming,
  type BreakerPlan,
  type FallbackReport,
  type FallbackTable,
  type PoolConfig,
  type SpellTiming,
} from '@recloser/core';
import { RecentCache } from '../RecentCache.js';
import type { ControlEventDraft } from '../events.js';
import type { Allowance, BreakerRecord, ControlPorts, ControlSettings } from '../ports.js';

/** spells remembered per process for deduplication: enough for every (breaker, region) in view */
const MAX_SPELLS = 100_000;

export class FallbackControl {
  private readonly tables: RecentCache<Promise<FallbackTable>>;
  /** (breaker, region) → the start of the last spell announced here */
  private readonly spells: RecentCache<number>;
  /** (breaker, instance) → its last FALLBACK report while this process resumes */
  private readonly cutOff = new Map<string, FallbackReport>();

  constructor(
    private readonly ports: Pick<ControlPorts, 'presence' | 'events' | 'clock'>,
    private readonly settings: ControlSettings,
    private readonly startedAt: number,
  ) {
    this.tables = new RecentCache(() => settings.heartbeatTtlMs);
    this.spells = new RecentCache(() => 10 * fallbackSpellToleranceMs(this.timing()), MAX_SPELLS);
  }

  /** The fallback part of `instanceId`'s plan for this breaker. */
  async planFor(
    breaker: BreakerRecord,
    pool: PoolConfig,
    instanceId: string,
    region: string,
    now: number,
  ): Promise<NonNullable<BreakerPlan['fallback']>> {
    const key = `${breaker.id}\u0000${pool.id}`;
    const table = await this.tables.through(key, now, async () => {
      const rows = await this.ports.presence.rows(breaker.id, now - this.settings.heartbeatTtlMs);
      return planFallback(pool.fallback, rows, breaker.id);
    });
    return fallbackOf(table, instanceId, region);
  }

  /**
   * While this process resumes after a start, an instance back from FALLBACK (it reports a spell;
   * later heartbeats of the window keep that report) gets nothing beyond what it reports holding:
   * its last report here, else undefined. An instance that never lost control — another replica
   * served it while this one started, as in a rolling restart — holds nothing this process could
   * have lost track of (its share is the stored division's; its tokens are the lease store's).
   */
  backFromFallback(
    key: { breakerId: string; instanceId: string },
    report: FallbackReport | undefined,
    now: number,
  ): FallbackReport | undefined {
    if (!resuming(now, this.startedAt, this.settings.heartbeatTtlMs)) {
      this.cutOff.clear();
      return undefined;
    }
    const id = `${key.breakerId}\u0000${key.instanceId}`;
    if (report !== undefined && this.cutOff.size < MAX_SPELLS) this.cutOff.set(id, report);
    return report ?? this.cutOff.get(id);
  }

  /** The allowance to grant: capped at what an instance back from FALLBACK holds (backFromFallback). */
  capAllowance(
    key: { breakerId: string; instanceId: string },
    allowance: Allowance | null,
    report: FallbackReport | undefined,
    now: number,
  ): Allowance | null {
    if (allowance === null) return allowance;
    const held = this.backFromFallback(key, report, now);
    return held !== undefined ? capToHolding(allowance, held) : allowance;
  }

  /** `region.fallback`, when this report opens a spell not yet announced here for (breaker, region). */
  async reported(
    breaker: BreakerRecord,
    instanceId: string,
    region: string,
    report: FallbackReport,
    now: number,
  ): Promise<void> {
    const key = `${breaker.id}\u0000${region}`;
    // read the clock afresh: a heartbeat that read it before a concurrent one stored its spell must
    // still find that entry (the cache serves no entry newer than the time asked with)
    const at = Math.max(now, this.ports.clock.now());
    const spell = fallbackSpell(report, now, this.spells.get(key, at), this.timing());
    if (spell === null) return;
    this.spells.set(key, at, spell.start);
    if (!spell.announce) return;
    const start = spell.start;
    const draft: ControlEventDraft = {
      type: 'region.fallback',
      breakerId: breaker.id,
      at: now,
      data: {
        group: breaker.group,
        dependency: breaker.dependency,
        region,
        scopeRegion: breaker.region,
        durationMs: Math.max(0, Math.round(report.durationMs)),
        since: new Date(start).toISOString(),
        reportedBy: instanceId,
        attempts: report.attempts,
        probes: report.probes,
        probeSuccesses: report.probeSuccesses,
      },
    };
    await this.ports.events.publish([draft]);
  }

  private timing(): SpellTiming {
    return {
      leaseTtlMs: this.settings.heartbeatTtlMs,
      heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
    };
  }
}
