// `oracle-N`: not a product and not a peer, a yardstick. The fleet admits N % of what the provider
// can serve this very second, read straight off the simulated provider (its outage, its capacity,
// its health) and divided evenly over every instance: what a fixed share of the capacity reaches
// with perfect knowledge and no feedback. While a collapsing provider warms up it admits
// WARM_SHARE, under the share of its capacity below which it warms. Each instance spaces its
// admissions evenly (one token, no burst) at a random phase. Run it by name only (`--strategies
// oracle-96`, `npm run policy -- --oracle`); the tables leave it out.
import { TokenBucket } from '@recloser/core';
import type { Simulation } from '../engine/Simulation.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

/** The share admitted while the provider is not at full health: under its warm-up threshold (`lowWater`). */
export const WARM_SHARE = 0.85;
/** How often a gate with nothing to admit (an outage) looks again. */
const POLL_MS = 250;

/** One instance's share: core's token bucket (burst 1), its rate following the provider each call. */
class OracleGate implements CallGate {
  private bucket: TokenBucket | null = null;

  constructor(
    private readonly sim: Simulation,
    private readonly ratePerInstance: () => number,
  ) {}

  acquire(): GateKind | null {
    const rate = this.ratePerInstance();
    if (!(rate > 0)) {
      this.bucket = null;
      return null;
    }
    // admitting again after nothing (the start, an outage): a fresh random phase, or the whole
    // fleet's tokens would come due together
    if (this.bucket === null) this.bucket = new TokenBucket(rate, 1, this.sim.clock, this.sim.rng.next());
    else if (this.bucket.ratePerSec !== rate) this.bucket.reset(rate, 1);
    return this.bucket.tryTake() ? 'call' : null;
  }

  complete(): void {}

  wakeAt(): number | null {
    // a rate that grows (a provider warming up) is seen at the next poll at the latest
    const wait = this.bucket === null ? POLL_MS : Math.min(POLL_MS * 4, this.bucket.msUntilNext());
    return this.sim.now() + wait;
  }

  /** no breaker: blocked only while the provider can serve nothing */
  isOpen(): boolean {
    return !(this.ratePerInstance() > 0);
  }
}

/** What oracle-`percent` admits, fleet-wide (calls/s): WARM_SHARE of `servable` while the provider is cold. */
export function oracleRatePerSec(percent: number, health: number, servable: number): number {
  return (health < 1 ? WARM_SHARE : percent / 100) * servable;
}

export function oracle(percent: number): Strategy {
  return {
    name: `oracle-${percent}`,
    build(ctx: StrategyContext): Fleet {
      const regions = new Set(ctx.instances.map((i) => i.region)).size;
      const n = ctx.instances.length;
      const rate = (): number =>
        oracleRatePerSec(percent, ctx.provider.currentHealth(), ctx.provider.servableRatePerSec(regions)) / n;
      const gates = ctx.instances.map(() => new OracleGate(ctx.sim, rate));
      return {
        gate: (i) => gates[i]!,
        attach: () => undefined,
        start: () => undefined,
        globalState: () => null,
      };
    },
  };
}

/** The yardsticks the CLI knows by name: 90 to 99 % of what the provider can serve (100 % tips a collapsing provider). */
export const ORACLES: Strategy[] = [90, 94, 96, 97, 98, 99].map(oracle);
/** Their names, as `--strategies` and the JSON spell them. */
export const ORACLE_NAMES: readonly string[] = ORACLES.map((o) => o.name);
