// One breaker's spell in FALLBACK: when it began, the pacer of its fallback probes (core
// FallbackPacer at core fallbackProbeRate), and what it did, for the report the controller gets
// when control returns. Lives only while the spell does, so the steady state carries none of it.
import {
  FallbackPacer,
  fallbackProbeRate,
  type BreakerPlan,
  type FallbackReport,
  type Rng,
  type TrafficClass,
} from '@recloser/core';

export class FallbackSpell {
  attempts = 0;
  probes = 0;
  probeSuccesses = 0;
  private readonly pacer: FallbackPacer;

  constructor(
    /** local time the spell began (control lost, or the last plan ran out) */
    readonly startedAt: number,
    private readonly plan: BreakerPlan['fallback'],
    private readonly maxIsolationMs: number,
  ) {
    this.pacer = new FallbackPacer(startedAt);
  }

  /** whether a fallback probe may start now; `take` spends it */
  ready(now: number, rng: Rng): boolean {
    this.pacer.setRate(now, this.rateAt(now), rng);
    return this.pacer.msUntilNext(now) === 0;
  }

  take(now: number, rng: Rng): boolean {
    this.pacer.setRate(now, this.rateAt(now), rng);
    return this.pacer.tryTake(now, rng);
  }

  report(now: number, holding: Record<TrafficClass, number> | null): FallbackReport {
    const out: FallbackReport = {
      durationMs: Math.max(0, Math.round(now - this.startedAt)),
      attempts: this.attempts,
      probes: this.probes,
      probeSuccesses: this.probeSuccesses,
    };
    if (holding !== null) out.holding = holding;
    return out;
  }

  /** this instance's probe rate now: an owner's part of the share, or everyone's after the maximum isolation */
  private rateAt(now: number): number {
    return fallbackProbeRate(this.plan, now - this.startedAt, this.maxIsolationMs);
  }
}
