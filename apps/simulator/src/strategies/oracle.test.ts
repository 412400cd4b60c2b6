import { describe, expect, it } from 'vitest';
import { Simulation } from '../engine/Simulation.js';
import { Recorder } from '../metrics/Recorder.js';
import { DEFAULT_COLLAPSE, Provider, type ProviderOptions } from '../provider/Provider.js';
import type { StrategyContext } from './Strategy.js';
import { oracle, oracleRatePerSec, WARM_SHARE } from './oracle.js';

const provider: ProviderOptions = {
  ratePerSec: 100,
  concurrency: 20,
  maxQueue: 50,
  queueTimeoutMs: 2000,
  rateLimitFactor: 2,
  outageLatencyMs: 30,
  pools: 'global',
};

/** 20 greedy instances (asking every millisecond) behind oracle-`percent`; admissions counted per 10 ms */
async function admissions(percent: number, setup: (sim: Simulation, p: Provider) => void, untilMs: number) {
  const sim = new Simulation(3);
  const p = new Provider(sim, provider);
  setup(sim, p);
  const instances = Array.from({ length: 20 }, (_, i) => ({ id: `i${i}`, region: 'eu' }));
  const fleet = oracle(percent).build({
    sim,
    provider: p,
    recorder: new Recorder(),
    instances,
  } as unknown as StrategyContext);
  const per10ms = new Array<number>(Math.ceil(untilMs / 10)).fill(0);
  instances.forEach((_, i) =>
    sim.every(1, 0, untilMs, () => {
      if (fleet.gate(i).acquire() === 'call') per10ms[Math.floor(sim.now() / 10)]! += 1;
    }),
  );
  await sim.run(untilMs);
  return per10ms;
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('oracle-N (a yardstick read off the provider, not a product)', () => {
  it('admits N % of what the provider serves, each instance holding at most one token', async () => {
    const counts = await admissions(90, () => undefined, 5000);
    // 90 % of 100/s over 5 s, ± one token per instance
    expect(Math.abs(sum(counts) - 450)).toBeLessThanOrEqual(20);
  });

  it('admits WARM_SHARE of what a cold provider serves, under the share it warms up below', () => {
    expect(oracleRatePerSec(96, 0.5, 50)).toBeCloseTo(WARM_SHARE * 50, 9);
    expect(oracleRatePerSec(96, 1, 50)).toBeCloseTo(48, 9);
    expect(WARM_SHARE).toBeLessThan(DEFAULT_COLLAPSE.lowWater);
  });

  it('admits nothing during an outage and spreads the first calls after it', async () => {
    const counts = await admissions(
      96,
      (sim, p) => {
        sim.at(0, () => p.setOutage(true));
        sim.at(2000, () => p.setOutage(false));
      },
      4000,
    );
    expect(sum(counts.slice(0, 200))).toBe(0);
    // the simple model comes back at full health: 96 % of 100/s, about one call per 10 ms; no 10 ms
    // take more than a few of the fleet's 20 instances (a shared phase would admit all 20 at once)
    expect(Math.abs(sum(counts.slice(200)) - 192)).toBeLessThanOrEqual(20);
    expect(Math.max(...counts.slice(200))).toBeLessThanOrEqual(5);
  });
});
