// Runs one scenario for one strategy: the same fleet, provider, workload and seed for every strategy.
import { Simulation } from '../engine/Simulation.js';
import { Recorder } from '../metrics/Recorder.js';
import { summarise, type StrategyFigures } from '../metrics/Summary.js';
import { Provider, sustainedInFlight } from '../provider/Provider.js';
import type { InstanceSpec, Strategy, StrategyContext } from '../strategies/Strategy.js';
import { Worker } from '../workload/Worker.js';
import type { ScenarioParams } from './Scenario.js';

function instanceSpecs(params: ScenarioParams): InstanceSpec[] {
  const width = String(params.instances).length;
  return Array.from({ length: params.instances }, (_, i) => ({
    id: `i-${String(i + 1).padStart(width, '0')}`,
    region: params.regions[i % params.regions.length]!,
  }));
}

/** What a strategy builds its fleet from: the scenario's instances, provider and workload on `sim`. */
export function strategyContext(
  params: ScenarioParams,
  sim: Simulation,
  provider: Provider,
  recorder: Recorder,
): StrategyContext {
  return {
    sim,
    provider,
    recorder,
    instances: instanceSpecs(params),
    workload: params.workload,
    providerRatePerSec: provider.servableRatePerSec(params.regions.length),
    providerConcurrency: sustainedInFlight(params.provider, 1, params.regions.length),
    ...(params.controllerLoss ? { controllerLoss: params.controllerLoss } : {}),
    ...(params.pool ? { pool: params.pool } : {}),
  };
}

export async function runStrategy(
  params: ScenarioParams,
  strategy: Strategy,
  seed: number,
  onProgress?: (fraction: number) => void,
): Promise<StrategyFigures> {
  const sim = new Simulation(seed);
  const provider = new Provider(sim, params.provider);
  const recorder = new Recorder();
  const ctx = strategyContext(params, sim, provider, recorder);
  const { instances } = ctx;
  const fleet = strategy.build(ctx);
  const workers = instances.map(
    (inst, i) => new Worker(inst.id, inst.region, sim, provider, fleet.gate(i), recorder, params.workload),
  );
  // the broken hosts are spread over the fleet (the middle one for a single host)
  for (let b = 0; b < params.brokenHosts; b++) {
    workers[Math.floor(((b + 0.5) * workers.length) / params.brokenHosts)]!.broken = true;
  }
  fleet.attach(workers);

  const { outage, durationMs } = params;
  if (outage) {
    sim.at(outage.startMs, () => provider.setOutage(true));
    sim.at(outage.startMs + outage.durationMs, () => {
      provider.setOutage(false);
      provider.setCapacityFraction(outage.recoveredFraction);
    });
    recorder.watchFirstSuccessFrom(outage.startMs + outage.durationMs);
  }
  for (const f of params.regionFaults ?? []) {
    sim.at(f.startMs, () => provider.setRegionFault(f.region, true));
    sim.at(f.startMs + f.durationMs, () => provider.setRegionFault(f.region, false));
  }
  sim.every(1000, 999, durationMs, () => {
    // what the provider could serve in the second that ends now, then its health moves
    recorder.servableSecond(sim.now(), provider.servableRatePerSec(params.regions.length));
    provider.endSecond(params.regions.length);
    let open = 0;
    for (let i = 0; i < workers.length; i++) if (fleet.gate(i).isOpen()) open += 1;
    recorder.sampleSecond(
      sim.now(),
      open,
      fleet.globalState(),
      fleet.globalStep?.() ?? null,
      fleet.globalLevel?.() ?? null,
      provider.takeMaxQueueDepths(),
    );
  });
  for (const w of workers) w.start(durationMs);
  fleet.start(durationMs);
  await sim.run(durationMs, onProgress);

  const demandPerSec = params.instances * params.workload.demandPerSec;
  const pool = fleet.pool?.();
  const facts = {
    pool: pool ?? null,
    wastedCalls: provider.wastedCalls,
    durationMs,
    outageStartMs: outage ? outage.startMs : null,
    outageEndMs: outage ? outage.startMs + outage.durationMs : null,
    recoveredFraction: outage ? outage.recoveredFraction : 1,
    servableAfterPerSec: provider.ratePerSecAt(outage ? outage.recoveredFraction : 1, params.regions.length),
    demandPerSec,
    maxQueueDepthByRegion: provider.maxQueueDepthByRegion(),
    isolatedInstances: fleet.isolated?.() ?? [],
    hasController: fleet.globalState() !== null,
  };
  const figures = summarise(recorder, facts);
  // a strategy's own figures; `from` re-reads the summary as if the outage had ended then
  const extra = fleet.extraFigures?.((fromMs) => summarise(recorder, { ...facts, outageEndMs: fromMs }));
  const regional = fleet.regionalFigures?.();
  return { ...figures, ...(regional ?? {}), ...(extra ?? {}) };
}
