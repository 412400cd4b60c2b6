// npm run policy -- [--seeds 1,3,7|1-13] [--strategies …] [--scenarios S2] [--providers collapse]
//                   [--oracle] [--jobs N] [--markdown FILE] [--json FILE] [--chart FILE] [--shortfall-chart FILE]
//                   [--baseline FILE] [--from FILE]
//                   (--help: policyArgs.ts)
// Issue 13's matrix: S1 with 45, 60 and 75 s outages and S2 with the provider back at 10, 20 and 35 %,
// on both provider models; prints (and writes) every strategy's accepted share of servable per run,
// recloser's re-trips, budget overruns and max attempts/servable, p95 latencies, then a summary per
// cell with the runs that meet the issue's bar and why the others do not (metrics/Bar.ts). Shows
// progress (minutes at full size). --jobs runs simulations side by side in worker threads; every
// run is a pure function of its seed, so the tables are the same at any --jobs.
// --oracle adds a yardstick column: the best share any fixed share of the provider's capacity,
// read off the simulated provider, reaches in that run (strategies/oracle.ts); it about doubles the time.
// --baseline compares with an earlier run's --json, cell by cell (report/policyComparison.ts);
// --from renders the tables of an earlier run's --json without simulating (the published pages
// come from docs/scenarios/policy-1-13.json so).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { bestAmong, type BarFigures } from './metrics/Bar.js';
import type { StrategyFigures } from './metrics/Summary.js';
import { parsePolicyArgs, POLICY_SCENARIOS, POLICY_USAGE, type PolicyScenario } from './policyArgs.js';
import { serviceTimeMs, type ProviderModel } from './provider/Provider.js';
import { percent, seedsOf } from './report/format.js';
import { policyChartSvg } from './report/policyChart.js';
import { comparisonLines, loadBaseline, runKey } from './report/policyComparison.js';
import { progressBar } from './report/progress.js';
import { shortfallChartSvg } from './report/shortfallChart.js';
import { cellOf, shortfallLines, summaryLines, type PolicyRow } from './report/policySummary.js';
import type { PoolSettings } from './scenarios/poolSettings.js';
import { runScenario } from './scenarios/runScenario.js';
import { S1 } from './scenarios/S1.js';
import { S2 } from './scenarios/S2.js';
import { STRATEGIES, strategiesNamed } from './strategies/index.js';
import { ORACLE_NAMES, ORACLES } from './strategies/oracle.js';

/** The figures a row keeps of each strategy: the bar's and the tables' (the per-second series stay in the worker); recloser's shortfall by phase. */
type RowFigures = BarFigures &
  Pick<StrategyFigures, 'acceptedLatencyP95Ms' | 'wastedCalls'> &
  Partial<Pick<StrategyFigures, 'shortfall'>>;
interface Row extends PolicyRow {
  figures: Record<string, RowFigures>;
}

/** One run of the matrix, as plain data (it crosses to a worker thread). */
interface RunSpec {
  seed: number;
  provider: ProviderModel;
  scenario: PolicyScenario;
  level: string;
  outageS?: number;
  capacity?: number;
  /** simulated duration, ms (else the scenario's) */
  durationMs?: number;
  /** recloser's probe and ramp settings (else the defaults) */
  pool?: PoolSettings;
  /** strategy names; null = every strategy the scenario compares */
  strategies: string[] | null;
}

const SCENARIOS = { S1, S2 } as const;
/** The matrix's cells: S1's outages, S2's capacities the provider comes back with. */
const CELLS: Record<PolicyScenario, Pick<RunSpec, 'level' | 'outageS' | 'capacity'>[]> = {
  S1: [45, 60, 75].map((o) => ({ level: `${o} s`, outageS: o })),
  S2: [0.1, 0.2, 0.35].map((c) => ({ level: `${c * 100} %`, capacity: c })),
};
const KNOWN = [...STRATEGIES, ...ORACLES];

async function runOne(spec: RunSpec, onProgress?: (fraction: number) => void): Promise<Row> {
  const strategies = spec.strategies ? strategiesNamed(spec.strategies, KNOWN) : undefined;
  const result = await runScenario(SCENARIOS[spec.scenario], {
    seed: spec.seed,
    provider: spec.provider,
    ...(spec.outageS !== undefined ? { outageS: spec.outageS } : {}),
    ...(spec.capacity !== undefined ? { capacity: spec.capacity } : {}),
    ...(spec.durationMs !== undefined ? { durationMs: spec.durationMs } : {}),
    ...(spec.pool !== undefined ? { pool: spec.pool } : {}),
    ...(strategies ? { strategies } : {}),
    ...(onProgress ? { onProgress: (_label: string, f: number) => onProgress(f) } : {}),
  });
  const figures: Record<string, RowFigures> = {};
  for (const c of result.sizes[0]!.columns)
    if (c.figures)
      figures[c.name] = {
        acceptedShareOfServable: c.figures.acceptedShareOfServable,
        retripsAfterRecovery: c.figures.retripsAfterRecovery,
        maxAttemptedOverServable: c.figures.maxAttemptedOverServable,
        acceptedLatencyP95Ms: c.figures.acceptedLatencyP95Ms,
        budgetViolations: c.figures.budgetViolations,
        wastedCalls: c.figures.wastedCalls,
        ...(c.figures.shortfall ? { shortfall: c.figures.shortfall } : {}),
      };
  return { provider: spec.provider, scenario: spec.scenario, level: spec.level, seed: spec.seed, figures };
}

const describeRun = (s: RunSpec): string => `${s.provider} ${s.scenario} ${s.level} seed ${s.seed}`;

/** Runs the specs in `jobs` worker threads, a line on stderr as each finishes; rows in spec order. */
function runInWorkers(specs: RunSpec[], jobs: number): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const rows: Row[] = new Array<Row>(specs.length);
    let next = 0;
    let finished = 0;
    const workers: Worker[] = [];
    const fail = (err: unknown): void => {
      for (const w of workers) void w.terminate();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const feed = (w: Worker): void => {
      if (next < specs.length) {
        w.postMessage({ index: next, spec: specs[next] });
        next += 1;
      } else void w.terminate();
    };
    for (let k = 0; k < Math.min(jobs, specs.length); k++) {
      const w = new Worker(new URL(import.meta.url), { workerData: { policyWorker: true } });
      workers.push(w);
      w.on('message', (m: { index: number; row?: Row; error?: string }) => {
        if (m.error !== undefined || !m.row)
          return fail(new Error(`${describeRun(specs[m.index]!)}: ${m.error}`));
        rows[m.index] = m.row;
        finished += 1;
        process.stderr.write(
          `[${finished}/${specs.length}] ${describeRun(specs[m.index]!)}: recloser ${percent(m.row.figures.recloser?.acceptedShareOfServable)}\n`,
        );
        if (finished === specs.length) {
          for (const x of workers) void x.terminate();
          resolve(rows);
        } else feed(w);
      });
      w.on('error', fail);
      feed(w);
    }
  });
}

/** --from: the specs' runs as an earlier --json recorded them, in the specs' order; a run it lacks is an error. */
function rowsFrom(file: string, specs: RunSpec[]): Row[] {
  const byRun = new Map(loadBaseline(file, '--from').map((r) => [runKey(r), r as Row]));
  return specs.map((spec) => {
    const row = byRun.get(runKey({ ...spec, figures: {} }));
    if (!row) throw new Error(`--from: ${file} has no run ${describeRun(spec)}`);
    return row;
  });
}

async function main(): Promise<void> {
  const args = parsePolicyArgs(process.argv.slice(2));
  if (args.help) {
    console.log(POLICY_USAGE);
    return;
  }
  strategiesNamed(args.strategies ?? [], KNOWN); // an unknown name fails here, before any run
  const baseline = args.baseline !== undefined ? loadBaseline(args.baseline) : null;
  const names = args.strategies ?? (args.oracle ? STRATEGIES.map((s) => s.name) : null);
  const strategies = names && args.oracle ? [...names, ...ORACLE_NAMES] : names;
  const durationMs = args.seconds !== undefined ? args.seconds * 1000 : undefined;
  const common = {
    strategies,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(args.pool !== undefined ? { pool: args.pool } : {}),
  };
  const specs: RunSpec[] = args.seeds.flatMap((seed) =>
    args.providers.flatMap((provider) =>
      POLICY_SCENARIOS.filter((sc) => args.scenarios.includes(sc)).flatMap((scenario) =>
        CELLS[scenario].map((cell): RunSpec => ({ seed, provider, scenario, ...cell, ...common })),
      ),
    ),
  );
  let rows: Row[];
  if (args.from !== undefined) rows = rowsFrom(args.from, specs);
  else if (args.jobs > 1) rows = await runInWorkers(specs, args.jobs);
  else {
    rows = [];
    for (const [i, spec] of specs.entries()) {
      const bar = progressBar(`[${i + 1}/${specs.length}] ${describeRun(spec)}`.padEnd(44));
      rows.push(await runOne(spec, (f) => bar.update(f)));
      bar.done();
    }
  }

  const columns = Object.keys(rows[0]!.figures).filter((n) => !ORACLE_NAMES.includes(n));
  /** the oracle share that served the most in this run, e.g. "94.9 % (oracle-96)" */
  const oracleBest = (r: Row): string => {
    const best = bestAmong(r.figures, ORACLE_NAMES);
    return best ? `${percent(best.share)} (${best.name})` : '-';
  };
  const oracleHead = args.oracle ? ' best fixed share (oracle) |' : '';
  const oracleRule = args.oracle ? '---:|' : '';
  const lines = [
    ...(args.pool ? [`recloser's pool: \`${JSON.stringify(args.pool)}\` over the defaults`, ''] : []),
    `| provider | scenario | seed | ${columns.map((n) => `\`${n}\``).join(' | ')} |${oracleHead} recloser re-trips | recloser max attempts / servable | recloser budget overruns |`,
    `|---|---|---:|${columns.map(() => '---:').join('|')}|${oracleRule}---:|---:|---:|`,
    ...rows.map((r) => {
      const rec = r.figures.recloser!;
      const oracle = args.oracle ? ` ${oracleBest(r)} |` : '';
      return `| ${cellOf(r)} | ${r.seed} | ${columns.map((n) => percent(r.figures[n]!.acceptedShareOfServable)).join(' | ')} |${oracle} ${rec.retripsAfterRecovery} | ${rec.maxAttemptedOverServable?.toFixed(2) ?? '-'} | ${rec.budgetViolations.length} |`;
    }),
  ];
  const shortfall = shortfallLines(rows);
  // what each strategy's goodput cost its callers in latency (the simple provider rewards a full queue)
  const ms = (v: number | null | undefined): string => (v == null ? '-' : `${v}`);
  const serviceMs = Math.round(serviceTimeMs(S2.params.provider));
  lines.push(
    '',
    `p95 latency of the calls accepted after the outage, ms (service time ${serviceMs} ms; a caller waits for a slot, and service stretches as the slots fill):`,
    '',
    `| provider | scenario | seed | ${columns.map((n) => `\`${n}\``).join(' | ')} |`,
    `|---|---|---:|${columns.map(() => '---:').join('|')}|`,
    ...rows.map(
      (r) =>
        `| ${cellOf(r)} | ${r.seed} | ${columns.map((n) => ms(r.figures[n]!.acceptedLatencyP95Ms)).join(' | ')} |`,
    ),
    '',
    ...summaryLines(rows),
    ...(shortfall.length > 0 ? ['', ...shortfall] : []),
    ...(baseline ? ['', ...comparisonLines(rows, baseline, args.baseline!)] : []),
  );
  console.log(lines.join('\n'));
  if (args.markdown) {
    mkdirSync(dirname(args.markdown), { recursive: true });
    writeFileSync(args.markdown, lines.join('\n') + '\n');
  }
  if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 1) + '\n');
  if (args.chart) {
    mkdirSync(dirname(args.chart), { recursive: true });
    writeFileSync(
      args.chart,
      policyChartSvg(`Issue 13's matrix, ${seedsOf(args.seeds)}: recloser against the best peer`, rows),
    );
  }
  if (args.shortfallChart) {
    mkdirSync(dirname(args.shortfallChart), { recursive: true });
    writeFileSync(
      args.shortfallChart,
      shortfallChartSvg(`Issue 13's matrix, ${seedsOf(args.seeds)}: where recloser's runs lost work`, rows),
    );
  }
}

/** A worker thread of --jobs: runs the specs it is sent, one at a time, and posts each row back. */
function serveRuns(): void {
  parentPort!.on('message', ({ index, spec }: { index: number; spec: RunSpec }) => {
    runOne(spec).then(
      (row) => parentPort!.postMessage({ index, row }),
      (err: unknown) =>
        parentPort!.postMessage({ index, error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

if (!isMainThread && (workerData as { policyWorker?: boolean } | null)?.policyWorker) serveRuns();
else
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
