// Short versions of S1, S2, S3 and S7 (small fleets, a few simulated minutes) asserting what must
// hold for recloser. The full-length runs are the benchmark (`npm run sim -- all`), not tests.
import { admissionLimit, stepBudget } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { probeAndRampOverruns } from '../metrics/Invariants.js';
import type { StrategyFigures } from '../metrics/Summary.js';
import { serviceTimeMs, sustainedInFlight } from '../provider/Provider.js';
import { jittered, naive } from '../strategies/naive.js';
import { poolFor, recloser } from '../strategies/recloser.js';
import type { Strategy } from '../strategies/Strategy.js';
import { runStrategy } from './run.js';
import { providerFor, type ScenarioParams } from './Scenario.js';
import { S1 } from './S1.js';
import { S2 } from './S2.js';
import { S3 } from './S3.js';
import { s7Params } from './S7.js';

/** A scenario shrunk to `instances` and `durationMs`, with its provider resized to the fleet. */
function short(
  base: ScenarioParams,
  instances: number,
  durationMs: number,
  outage = base.outage,
): ScenarioParams {
  return {
    ...base,
    instances,
    durationMs,
    outage,
    provider: providerFor(instances, base.workload.demandPerSec, base.provider),
  };
}

const S1_SHORT = simple(
  short(S1.params, 60, 150_000, { startMs: 10_000, durationMs: 20_000, recoveredFraction: 1 }),
);
const S2_SHORT = simple(
  short(S2.params, 200, 240_000, {
    startMs: 10_000,
    durationMs: 20_000,
    recoveredFraction: 0.1,
  }),
);
/** S1 short on the collapsing provider */
const S1_COLLAPSE = withModel(
  short(S1.params, 120, 150_000, { startMs: 10_000, durationMs: 30_000, recoveredFraction: 1 }),
  'collapse',
);

/** The same scenario on the given provider model. */
function withModel(params: ScenarioParams, model: 'simple' | 'collapse'): ScenarioParams {
  return { ...params, provider: { ...params.provider, model } };
}
function simple(params: ScenarioParams): ScenarioParams {
  return withModel(params, 'simple');
}
const S3_SHORT = short(S3.params, 60, 90_000);

function poolOf(params: ScenarioParams) {
  return poolFor(
    {
      providerRatePerSec: params.provider.ratePerSec,
      providerConcurrency: sustainedInFlight(params.provider, 1, params.regions.length),
    },
    'standard',
  );
}

const cache = new Map<string, Promise<StrategyFigures>>();
function run(name: string, params: ScenarioParams, strategy: Strategy, seed = 7): Promise<StrategyFigures> {
  const key = `${name}/${strategy.name}/${seed}`;
  let p = cache.get(key);
  if (!p) cache.set(key, (p = runStrategy(params, strategy, seed)));
  return p;
}

describe('S1 short: a fleet trips together in an outage', () => {
  it('naive shows a herd at recovery: many times the fleet size in one second', async () => {
    const figures = await run('S1', S1_SHORT, naive);
    expect(figures.peakAttemptsPerSec).toBeGreaterThanOrEqual(3 * S1_SHORT.instances);
  });

  it('recloser never exceeds the probe budget while probing nor the step allowance while ramping', async () => {
    const figures = await run('S1', S1_SHORT, recloser);
    expect(figures.series.some((p) => p.globalState === 'probing')).toBe(true);
    expect(figures.series.some((p) => p.globalState === 'ramping')).toBe(true);
    expect(probeAndRampOverruns(figures.series, poolOf(S1_SHORT))).toEqual([]);
  });

  it('recloser recovers with a wave far below the herd and no false global open', async () => {
    const [r, n] = await Promise.all([run('S1', S1_SHORT, recloser), run('S1', S1_SHORT, naive)]);
    expect(r.peakAttemptsPerSec).toBeLessThan(n.peakAttemptsPerSec / 5);
    expect(r.globalOpens).toBeGreaterThanOrEqual(1);
    expect(r.falseGlobalOpens).toBe(0);
    expect(r.timeToRecoveredMs).not.toBeNull();
  });
});

describe('S1 short on the collapsing provider', () => {
  it('naive and jittered collapse it (goodput stays far below servable); recloser does not, within its budget', async () => {
    const [r, n, j] = await Promise.all([
      run('S1c', S1_COLLAPSE, recloser),
      run('S1c', S1_COLLAPSE, naive),
      run('S1c', S1_COLLAPSE, jittered),
    ]);
    expect(n.acceptedShareOfServable!).toBeLessThan(0.6);
    expect(j.acceptedShareOfServable!).toBeLessThan(0.6);
    expect(n.wastedCalls).toBeGreaterThan(0);
    expect(r.acceptedShareOfServable!).toBeGreaterThan(
      Math.max(n.acceptedShareOfServable!, j.acceptedShareOfServable!),
    );
    expect(r.retripsAfterRecovery).toBe(0);
    expect(r.budgetViolations).toEqual([]);
    expect(r.maxAttemptedOverServable!).toBeLessThanOrEqual(1.2);
    // what naive's goodput costs its callers: the calls it gets through waited in a full queue
    expect(r.acceptedLatencyP95Ms!).toBeGreaterThanOrEqual(serviceTimeMs(S1_COLLAPSE.provider));
    expect(n.acceptedLatencyP95Ms!).toBeGreaterThan(r.acceptedLatencyP95Ms!);
  });
});

describe('S2 short: the provider comes back at 10 %', () => {
  it('recloser settles without re-tripping and accepts at least as much as naive', async () => {
    const [r, n] = await Promise.all([run('S2', S2_SHORT, recloser), run('S2', S2_SHORT, naive)]);
    expect(r.series.some((p) => p.globalState === 'ramping')).toBe(true);
    expect(r.retripsAfterRecovery).toBe(0);
    expect(r.acceptedWork).toBeGreaterThanOrEqual(n.acceptedWork);
    expect(probeAndRampOverruns(r.series, poolOf(S2_SHORT))).toEqual([]);
  });

  it("each of recloser's ramp moves carries the evidence it was judged on (the JSON's globalTransitions)", async () => {
    const r = await run('S2', S2_SHORT, recloser);
    const moves = r.globalTransitions.filter((t) => t.from === 'ramping');
    expect(moves.length).toBeGreaterThan(0);
    for (const t of moves) {
      expect(t.figures?.gates?.attempts, t.reason).toBeGreaterThan(0);
      expect(t.figures).toHaveProperty('level');
    }
    const started = r.globalTransitions.find((t) => t.to === 'ramping' && t.from === 'probing');
    expect(started?.figures?.probe?.verdict).toBe('pass');
  });

  it('naive flaps: it never reaches a stable recovered state', async () => {
    const n = await run('S2', S2_SHORT, naive);
    expect(n.timeToRecoveredMs).toBeNull();
    expect(n.probes).toBeGreaterThan(S2_SHORT.instances);
  });
});

describe('S3 short: one broken host', () => {
  it('recloser keeps the group closed and reports the broken host isolated', async () => {
    const r = await run('S3', S3_SHORT, recloser);
    expect(r.globalOpens).toBe(0);
    expect(r.falseGlobalOpens).toBe(0);
    // the broken host is the middle instance (run.ts spreads broken hosts over the fleet)
    expect(r.isolatedInstances).toEqual(['i-31']);
    expect(r.acceptedLatencyP95Ms).toBeNull(); // no outage: nothing is "after" it
  });
});

describe('S7 short: fleet size', () => {
  it("recloser's recovery wave is set by the pool, not the fleet: 10, 100 and 1,000 instances climb the same levels within the same allowance", async () => {
    const at = (n: number) => ({ ...s7Params(n), durationMs: 130_000 });
    const pool = poolOf(at(1000)); // the provider, and so the pool, is the same at every size
    const runs = await Promise.all([
      run('S7-10', at(10), recloser),
      run('S7-100', at(100), recloser),
      run('S7-1000', at(1000), recloser),
    ]);
    const levelsOf = (r: StrategyFigures): number[] => {
      const levels: number[] = [];
      for (const p of r.series)
        if (p.globalLevel !== null && p.globalLevel !== levels.at(-1)) levels.push(p.globalLevel);
      return levels;
    };
    const smallest = levelsOf(runs[0]!).slice(0, 3);
    expect(smallest).toHaveLength(3);
    for (const r of runs) {
      expect(r.peakAttemptsPerSec).toBeGreaterThan(0);
      expect(probeAndRampOverruns(r.series, pool)).toEqual([]);
      // the wave's peak stays within the pool's allowance at the highest level admitted by then
      // (plus the probe budget): the same ceiling whatever the number of instances that share it
      const outageEndS = (at(1000).outage!.startMs + at(1000).outage!.durationMs) / 1000;
      expect(r.peakAttemptsAtMs).toBeGreaterThanOrEqual(outageEndS * 1000);
      const peakEndS = Math.floor((r.peakAttemptsAtMs + 999) / 1000); // the second the peak window ends in
      const level = Math.max(0, ...r.series.slice(0, peakEndS + 1).map((p) => p.globalLevel ?? 0));
      let allowance = pool.probe.ratePerSec;
      for (const cap of Object.values(stepBudget(pool, { step: 0, level })))
        allowance += cap.ratePerSec + admissionLimit(cap);
      expect(r.peakAttemptsPerSec).toBeLessThanOrEqual(Math.ceil(allowance));
      // and the ramp climbs the same first levels (within the few per cent its measured gates move them)
      const first = levelsOf(r).slice(0, 3);
      expect(first).toHaveLength(3);
      first.forEach((l, k) => expect(Math.abs(l - smallest[k]!) / smallest[k]!).toBeLessThanOrEqual(0.05));
    }
  });
});

describe('determinism', () => {
  it('the same seed gives identical figures, another seed does not', async () => {
    const a = await runStrategy(S1_SHORT, jittered, 11);
    const b = await runStrategy(S1_SHORT, jittered, 11);
    const c = await runStrategy(S1_SHORT, jittered, 12);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(c)).not.toBe(JSON.stringify(a));
  });

  it('recloser (SDK + in-memory controller) is reproducible from its seed', async () => {
    const a = await runStrategy(S3_SHORT, recloser, 5);
    const b = await runStrategy(S3_SHORT, recloser, 5);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
