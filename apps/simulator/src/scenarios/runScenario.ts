// Runs a scenario for every strategy (and, for S7, every fleet size) and gathers what the CLI
// prints and writes.
import type { StrategyFigures } from '../metrics/Summary.js';
import type { StrategyColumn } from '../report/table.js';
import { STRATEGIES } from '../strategies/index.js';
import type { Strategy } from '../strategies/Strategy.js';
import { runStrategy } from './run.js';
import type { ProviderModel } from '../provider/Provider.js';
import type { PoolSettings } from './poolSettings.js';
import type { Scenario, ScenarioParams } from './Scenario.js';

/** The scenario's parameters with the run's overrides (provider model, outage length, capacity after it, pool settings). */
export function withOverrides(
  params: ScenarioParams,
  opts: Pick<RunOptions, 'provider' | 'outageS' | 'capacity' | 'durationMs' | 'pool'>,
): ScenarioParams {
  const out: ScenarioParams = { ...params, provider: { ...params.provider } };
  if (opts.durationMs !== undefined) out.durationMs = opts.durationMs;
  if (opts.pool !== undefined) out.pool = opts.pool;
  if (opts.provider !== undefined) out.provider.model = opts.provider;
  if (out.outage && (opts.outageS !== undefined || opts.capacity !== undefined)) {
    out.outage = {
      ...out.outage,
      ...(opts.outageS !== undefined ? { durationMs: opts.outageS * 1000 } : {}),
      ...(opts.capacity !== undefined ? { recoveredFraction: opts.capacity } : {}),
    };
  }
  if (out.outage && out.outage.startMs + out.outage.durationMs >= out.durationMs)
    throw new Error(
      `the outage ends at ${(out.outage.startMs + out.outage.durationMs) / 1000} s, after the run (${out.durationMs / 1000} s)`,
    );
  return out;
}

export interface SizeResult {
  instances: number;
  params: ScenarioParams;
  columns: StrategyColumn[];
}

export interface ScenarioResult {
  scenario: Scenario;
  seed: number;
  sizes: SizeResult[];
}

export interface RunOptions {
  seed: number;
  instances?: number;
  /** overrides the scenario's simulated duration */
  durationMs?: number;
  strategies?: Strategy[];
  /** the provider model (else the scenario's) */
  provider?: ProviderModel;
  /** the outage's length in seconds (scenarios with an outage) */
  outageS?: number;
  /** the fraction of its capacity the provider comes back with (scenarios with an outage) */
  capacity?: number;
  /** the operator's probe and ramp settings for the recloser strategies' pool */
  pool?: PoolSettings;
  onProgress?: (label: string, fraction: number) => void;
}

export function paramsFor(scenario: Scenario, instances: number | undefined): ScenarioParams[] {
  const { paramsAt } = scenario;
  if (paramsAt) {
    const sizes =
      instances !== undefined ? [instances] : (scenario.fleetSizes ?? [scenario.params.instances]);
    return sizes.map((n) => paramsAt(n));
  }
  if (instances === undefined) return [scenario.params];
  const scale = instances / scenario.params.instances;
  const p = scenario.params.provider;
  // the provider keeps its headroom over the fleet's demand when the fleet is resized
  return [
    {
      ...scenario.params,
      instances,
      provider: {
        ...p,
        ratePerSec: Math.max(10, Math.round(p.ratePerSec * scale)),
        concurrency: Math.max(2, Math.round(p.concurrency * scale)),
        maxQueue: Math.max(4, Math.round(p.maxQueue * scale)),
      },
    },
  ];
}

export async function runScenario(scenario: Scenario, opts: RunOptions): Promise<ScenarioResult> {
  const strategies = opts.strategies ?? scenario.strategies ?? STRATEGIES;
  const sizes: SizeResult[] = [];
  for (const base of paramsFor(scenario, opts.instances)) {
    const params = withOverrides(base, opts);
    const columns: StrategyColumn[] = [];
    for (const strategy of strategies) {
      const needs = strategy.needs ?? strategy.needsIn?.(params);
      if (needs) {
        columns.push({ name: strategy.name, figures: null, needs });
        continue;
      }
      const label = `${scenario.id} ${strategy.name} @${params.instances}`;
      const figures: StrategyFigures = await runStrategy(params, strategy, opts.seed, (f) =>
        opts.onProgress?.(label, f),
      );
      columns.push({ name: strategy.name, figures });
    }
    sizes.push({ instances: params.instances, params, columns });
  }
  return { scenario, seed: opts.seed, sizes };
}

/** The JSON the CLI writes: the largest fleet size at the top level, every size under `bySize`. */
export function resultJson(result: ScenarioResult): unknown {
  const sizeJson = (s: SizeResult): unknown => ({
    params: s.params,
    strategies: Object.fromEntries(s.columns.map((c) => [c.name, c.figures ?? { needs: c.needs }])),
  });
  const last = result.sizes[result.sizes.length - 1]!;
  const top = sizeJson(last) as Record<string, unknown>;
  return {
    scenario: result.scenario.id,
    title: result.scenario.title,
    seed: result.seed,
    ...top,
    ...(result.sizes.length > 1
      ? { bySize: result.sizes.map((s) => ({ instances: s.instances, ...(sizeJson(s) as object) })) }
      : {}),
  };
}
