// npm run policy -- [--seeds 1,3,7] [--oracle] [--markdown FILE] [--json FILE]
// Issue 13's matrix: S1 with 45, 60 and 75 s outages and S2 with the provider back at 10, 20 and 35 %,
// on both provider models, every strategy; prints (and writes) accepted share of servable per run,
// recloser's re-trips, budget overruns and max attempts/servable. Shows progress (minutes at full size).
// --oracle adds a yardstick column: the best share any fixed share of the provider's capacity,
// read off the simulated provider, reaches in that run (strategies/oracle.ts); it about doubles the time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StrategyFigures } from './metrics/Summary.js';
import { PROVIDER_MODELS, serviceTimeMs } from './provider/Provider.js';
import { progressBar } from './report/progress.js';
import { runScenario } from './scenarios/runScenario.js';
import { S1 } from './scenarios/S1.js';
import { S2 } from './scenarios/S2.js';
import { STRATEGIES } from './strategies/index.js';
import { ORACLES } from './strategies/oracle.js';

interface Row {
  provider: string;
  scenario: string;
  level: string;
  seed: number;
  figures: Record<string, StrategyFigures>;
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const pct = (v: number | null | undefined): string => (v == null ? '-' : `${(v * 100).toFixed(1)} %`);

async function main(): Promise<void> {
  const seeds = (flag('--seeds') ?? '7').split(',').map(Number);
  const withOracle = process.argv.includes('--oracle');
  const runs = seeds.flatMap((seed) =>
    PROVIDER_MODELS.flatMap((provider) => [
      ...[45, 60, 75].map((o) => ({ seed, provider, scenario: S1, level: `${o} s`, opts: { outageS: o } })),
      ...[0.1, 0.2, 0.35].map((c) => ({
        seed,
        provider,
        scenario: S2,
        level: `${c * 100} %`,
        opts: { capacity: c },
      })),
    ]),
  );
  const rows: Row[] = [];
  for (const [i, r] of runs.entries()) {
    const bar = progressBar(
      `[${i + 1}/${runs.length}] ${r.provider} ${r.scenario.id} ${r.level} seed ${r.seed}`.padEnd(44),
    );
    const result = await runScenario(r.scenario, {
      seed: r.seed,
      provider: r.provider,
      ...r.opts,
      ...(withOracle ? { strategies: [...STRATEGIES, ...ORACLES] } : {}),
      onProgress: (_label, f) => bar.update(f),
    });
    bar.done();
    const figures: Record<string, StrategyFigures> = {};
    for (const c of result.sizes[0]!.columns) if (c.figures) figures[c.name] = c.figures;
    rows.push({ provider: r.provider, scenario: r.scenario.id, level: r.level, seed: r.seed, figures });
  }
  const oracleNames = new Set(ORACLES.map((o) => o.name));
  const isOracle = (n: string): boolean => oracleNames.has(n);
  const names = Object.keys(rows[0]!.figures).filter((n) => !isOracle(n));
  /** the oracle share that served the most in this run, e.g. "94.9 % (oracle-96)" */
  const oracleBest = (r: Row): string => {
    const best = Object.entries(r.figures)
      .filter(([n]) => isOracle(n))
      .sort(([, a], [, b]) => (b.acceptedShareOfServable ?? 0) - (a.acceptedShareOfServable ?? 0))[0];
    return best ? `${pct(best[1].acceptedShareOfServable)} (${best[0]})` : '-';
  };
  const oracleHead = withOracle ? ' best fixed share (oracle) |' : '';
  const oracleRule = withOracle ? '---:|' : '';
  const lines = [
    `| provider | scenario | seed | ${names.map((n) => `\`${n}\``).join(' | ')} |${oracleHead} recloser re-trips | recloser max attempts / servable | recloser budget overruns |`,
    `|---|---|---:|${names.map(() => '---:').join('|')}|${oracleRule}---:|---:|---:|`,
    ...rows.map((r) => {
      const rec = r.figures.recloser!;
      const oracle = withOracle ? ` ${oracleBest(r)} |` : '';
      return `| ${r.provider} | ${r.scenario} ${r.level} | ${r.seed} | ${names.map((n) => pct(r.figures[n]!.acceptedShareOfServable)).join(' | ')} |${oracle} ${rec.retripsAfterRecovery} | ${rec.maxAttemptedOverServable?.toFixed(2) ?? '-'} | ${rec.budgetViolations.length} |`;
    }),
  ];
  // what each strategy's goodput cost its callers in latency (the simple provider rewards a full queue)
  const ms = (v: number | null | undefined): string => (v == null ? '-' : `${v}`);
  const serviceMs = Math.round(serviceTimeMs(S2.params.provider));
  lines.push(
    '',
    `p95 latency of the calls accepted after the outage, ms (service time ${serviceMs} ms; a caller waits for a slot, and service stretches as the slots fill):`,
    '',
    `| provider | scenario | seed | ${names.map((n) => `\`${n}\``).join(' | ')} |`,
    `|---|---|---:|${names.map(() => '---:').join('|')}|`,
    ...rows.map(
      (r) =>
        `| ${r.provider} | ${r.scenario} ${r.level} | ${r.seed} | ${names.map((n) => ms(r.figures[n]!.acceptedLatencyP95Ms)).join(' | ')} |`,
    ),
  );
  console.log(lines.join('\n'));
  const md = flag('--markdown');
  if (md) {
    mkdirSync(dirname(md), { recursive: true });
    writeFileSync(md, lines.join('\n') + '\n');
  }
  const json = flag('--json');
  if (json) {
    const slim = rows.map((r) => ({
      ...r,
      figures: Object.fromEntries(
        Object.entries(r.figures).map(([n, f]) => [
          n,
          {
            acceptedShareOfServable: f.acceptedShareOfServable,
            retripsAfterRecovery: f.retripsAfterRecovery,
            maxAttemptedOverServable: f.maxAttemptedOverServable,
            acceptedLatencyP95Ms: f.acceptedLatencyP95Ms,
            budgetViolations: f.budgetViolations,
            wastedCalls: f.wastedCalls,
          },
        ]),
      ),
    }));
    writeFileSync(json, JSON.stringify(slim, null, 1) + '\n');
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
