// failover: what a fleet without coordination does when it can reach the provider in several
// regions. Every instance keeps an independent breaker per region (the common library default:
// 50 % failures in a 10-call window, 30 s open, 10 half-open calls) and sends each call to the
// first region, starting with its own, whose breaker lets it through. When its region fails, all
// of its traffic lands on the next region at once: the cascade this scenario is about.
import { DEFAULT_REGIONAL_POLICY, decideRegional, type Outcome, type RegionHealth } from '@recloser/core';
import { IndependentBreaker, isFailure, NAIVE_BREAKER } from '../strategies/naive.js';
import type { Fleet, Strategy, StrategyContext } from '../strategies/Strategy.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { RegionalFigures } from './RegionalFigures.js';
import { RegionMeter } from './RegionMeter.js';
import { ScopeOpens } from './ScopeOpens.js';

class FailoverGate implements CallGate {
  private pending: string;

  constructor(
    private readonly home: string,
    /** the regions in the order this instance tries them, its own first */
    private readonly order: readonly string[],
    private readonly breakers: ReadonlyMap<string, IndependentBreaker>,
    private readonly meter: RegionMeter,
    private readonly judged: Map<string, { attempts: number; failed: number }>,
  ) {
    this.pending = home;
  }

  acquire(): GateKind | null {
    for (const r of this.order) {
      const kind = this.breakers.get(r)!.acquire();
      if (kind !== null) {
        this.pending = r;
        return kind;
      }
    }
    return null;
  }

  route(): string {
    this.meter.sent(this.home, this.pending);
    return this.pending;
  }

  complete(
    kind: GateKind,
    outcome: Outcome,
    latencyMs: number,
    retryAfterMs: number | undefined,
    _attemptNo?: number,
    region?: string,
  ): void {
    const target = region ?? this.home;
    this.breakers.get(target)!.complete(kind, outcome, latencyMs, retryAfterMs);
    if (outcome === 'cancelled') return;
    // judged as the instances' own breakers judge it
    const failed = isFailure(outcome);
    const j = this.judged.get(target)!;
    j.attempts += 1;
    if (failed) j.failed += 1;
    if (target !== this.home && !failed) this.meter.movedSucceeded(target);
  }

  wakeAt(): number | null {
    let at: number | null = null;
    for (const b of this.breakers.values()) {
      const w = b.wakeAt();
      if (w !== null && (at === null || w < at)) at = w;
    }
    return at;
  }

  isOpen(): boolean {
    return this.breakers.get(this.home)!.isOpen();
  }
}

export const failover: Strategy = {
  name: 'failover',
  build(ctx: StrategyContext): Fleet {
    const regions = [...new Set(ctx.instances.map((i) => i.region))];
    const meter = new RegionMeter(regions, () => ctx.provider.ratePerSecAt(1, 1));
    const opens = new ScopeOpens(regions);
    // the failed share of the calls each region's endpoint answered in the last second
    const judged = new Map(regions.map((r) => [r, { attempts: 0, failed: 0 }]));
    const gates = ctx.instances.map((inst) => {
      const at = regions.indexOf(inst.region);
      const order = regions.map((_, k) => regions[(at + k) % regions.length]!);
      const breakers = new Map(
        regions.map((r) => [
          r,
          new IndependentBreaker(`${inst.id}@${r}`, ctx.sim, ctx.sim.rng, ctx.recorder, NAIVE_BREAKER),
        ]),
      );
      return new FailoverGate(inst.region, order, breakers, meter, judged);
    });
    return {
      gate: (i) => gates[i]!,
      attach: () => undefined,
      start: (untilMs) => {
        ctx.sim.every(1000, 1000, untilMs, () => {
          // the same judge as recloser's control layer, applied to the instances' own breakers
          const rows: RegionHealth[] = regions.map((r) => {
            const mine = ctx.instances.flatMap((inst, i) => (inst.region === r ? [gates[i]!] : []));
            const j = judged.get(r)!;
            const row = {
              region: r,
              live: mine.length,
              open: mine.filter((g) => g.isOpen()).length,
              errorRate: j.attempts > 0 ? j.failed / j.attempts : 0,
              saturation: 0,
            };
            j.attempts = 0;
            j.failed = 0;
            return row;
          });
          meter.endSecond(ctx.sim.now(), opens.observe(decideRegional(rows, DEFAULT_REGIONAL_POLICY)));
        });
      },
      globalState: () => null,
      regionalFigures: (): RegionalFigures => {
        const m = meter.figures();
        return {
          opensByScope: opens.counts,
          maxShiftOverHeadroom: m.maxShiftOverHeadroom,
          regions: m.regions,
          regionalSeries: m.series,
        };
      },
    };
  },
};
