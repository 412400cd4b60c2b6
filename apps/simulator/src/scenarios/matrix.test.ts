// The policy matrix of issue 13 at reduced size: seeds 1, 3 and 7 × S1 with 45, 60 and 75 s outages
// and S2 with the provider back at 10, 20 and 35 % × both provider models, recloser against naive.
// The full-size figures are the benchmark (`npm run sim`, docs/scenarios); this keeps the rules that
// hold at every size under test in CI (about half a minute).
import { describe, expect, it } from 'vitest';
import { SHORTFALL_PHASES } from '../metrics/Shortfall.js';
import { PROVIDER_MODELS } from '../provider/Provider.js';
import { naive } from '../strategies/naive.js';
import { recloser } from '../strategies/recloser.js';
import { runStrategy } from './run.js';
import { withOverrides } from './runScenario.js';
import { providerFor, type ScenarioParams } from './Scenario.js';
import { S1 } from './S1.js';
import { S2 } from './S2.js';

const SEEDS = [1, 3, 7];

function reduced(base: ScenarioParams, instances: number, durationMs: number): ScenarioParams {
  return {
    ...base,
    instances,
    durationMs,
    provider: { ...providerFor(instances, base.workload.demandPerSec, base.provider) },
  };
}

const cases = PROVIDER_MODELS.flatMap((provider) => [
  ...[45, 60, 75].map((outageS) => ({
    name: `${provider} S1 ${outageS} s`,
    provider,
    params: withOverrides(reduced(S1.params, 60, 150_000), { provider, outageS }),
  })),
  ...[0.1, 0.2, 0.35].map((capacity) => ({
    name: `${provider} S2 back at ${capacity * 100} %`,
    provider,
    params: withOverrides(reduced(S2.params, 100, 180_000), { provider, capacity, outageS: 30 }),
  })),
]);

describe('the policy matrix at reduced size (3 seeds × 6 scenarios × 2 provider models)', () => {
  for (const c of cases) {
    it(`${c.name}: recloser keeps its budgets and stays within the probe budget until the first success`, async () => {
      for (const seed of SEEDS) {
        const r = await runStrategy(c.params, recloser, seed);
        expect(r.budgetViolations, `seed ${seed}`).toEqual([]);
        const firstSecond = r.series.findIndex((p) => p.globalState === 'ramping');
        const outageEnd = (c.params.outage!.startMs + c.params.outage!.durationMs) / 1000;
        for (const p of r.series.slice(outageEnd, firstSecond))
          expect(p.attempts, `seed ${seed} t=${p.t}`).toBeLessThanOrEqual(1);
        // the shortfall by phase accounts for the whole share lost (the share is rounded to 0.1 point),
        // its waiting phase ends where the first ramp starts, and only a re-trip has a reopened phase
        const shortfall = r.shortfall!;
        const points = SHORTFALL_PHASES.reduce((sum, p) => sum + shortfall[p].points, 0);
        expect(Math.abs(points - 100 * (1 - r.acceptedShareOfServable!)), `seed ${seed}`).toBeLessThan(0.1);
        expect(shortfall.waiting.seconds, `seed ${seed}`).toBe(firstSecond - Math.ceil(outageEnd));
        expect(shortfall.reopened.seconds > 0, `seed ${seed}`).toBe(r.retripsAfterRecovery > 0);
      }
    });
    if (c.provider !== 'collapse') continue;
    it(`${c.name}: recloser out-serves naive on the collapsing provider`, async () => {
      for (const seed of SEEDS) {
        const [r, n] = await Promise.all([
          runStrategy(c.params, recloser, seed),
          runStrategy(c.params, naive, seed),
        ]);
        expect(r.acceptedShareOfServable!, `seed ${seed}`).toBeGreaterThan(n.acceptedShareOfServable!);
      }
    });
  }
});
