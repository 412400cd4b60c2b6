// `oracle-N`: not a product and not a peer, a yardstick. The fleet admits N % of what the provider
// can serve this very second, read straight off the simulated provider (its outage, its capacity,
// its health) and divided evenly over every instance: what a fixed share of the capacity reaches
// with perfect knowledge and no feedback. While a collapsing provider warms up it admits
// WARM_SHARE, under the share of its capacity below which it warms. Each instance spaces its
// admissions evenly (one token, no burst) at a random phase. Run it by name only (`--strategies
// oracle-96`, `npm run policy -- --oracle`); the tables leave it out.
import type { Simulation } from '../engine/Simulation.js';
import type { Provider } from '../provider/Provider.js';
import type { CallGate, GateKind } from '../workload/CallGate.js';
import type { Fleet, Strategy, StrategyContext } from './Strategy.js';

/** The share admitted while the provider is not at full health: under its warm-up threshold (0.9). */
export const WARM_SHARE = 0.85;
/** How often a gate with nothing to admit (an outage) looks again. */
const POLL_MS = 250;

class OracleGate implements CallGate {
  private tokens: number;
  private at: number;
  private lastRate = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly provider: Provider,
    private readonly ratePerInstance: () => number,
  ) {
    this.tokens = sim.rng.next();
    this.at = sim.now();
  }

  acquire(): GateKind | null {
    const now = this.sim.now();
    const rate = this.ratePerInstance();
    // back from nothing to admit (an outage): a fresh random phase, or the whole fleet's tokens
    // would come due together
    if (this.lastRate === 0 && rate > 0) this.tokens = this.sim.rng.next();
    else this.tokens = Math.min(1, this.tokens + ((now - this.at) / 1000) * rate);
    this.at = now;
    this.lastRate = rate;
    if (this.tokens < 1) return null;
    this.tokens -= 1;
    return 'call';
  }

  complete(): void {}

  wakeAt(): number | null {
    const rate = this.ratePerInstance();
    const now = this.sim.now();
    if (!(rate > 0)) return now + POLL_MS;
    return now + Math.min(POLL_MS * 4, Math.ceil(((1 - this.tokens) / rate) * 1000));
  }

  isOpen(): boolean {
    return this.provider.servableRatePerSec(1) === 0;
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
      const gates = ctx.instances.map(() => new OracleGate(ctx.sim, ctx.provider, rate));
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
