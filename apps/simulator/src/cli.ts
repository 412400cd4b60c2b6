// npm run sim -- <scenario-id>|all|list|live [--instances N] [--seed S] [--json FILE] [--chart FILE]
//   [--strategies naive,recloser] [--markdown FILE] [--seconds S (simulated duration; live: wall time)]
// Prints one table per scenario (one column per strategy); --json writes the figures and per-second
// series, --chart an SVG of attempts/s, admitted rate per class and accepted work over time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { progressBar } from './report/progress.js';
import { chartSvg, type ChartLine } from './report/svg.js';
import { markdownTable, textTable } from './report/table.js';
import { findScenario, SCENARIOS } from './scenarios/index.js';
import { resultJson, runScenario, type ScenarioResult } from './scenarios/runScenario.js';
import { runLabel, type Scenario } from './scenarios/Scenario.js';
import { STRATEGIES, strategiesNamed } from './strategies/index.js';
import { ORACLES } from './strategies/oracle.js';
import { runS6, S6 } from './scenarios/S6.js';
import { s6Chart, s6Json, s6Markdown, s6Table } from './scenarios/S6report.js';
import { parseArgs, USAGE, type CliArgs } from './cliArgs.js';

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** For `all`, FILE.json becomes FILE-S1.json etc. */
function perScenario(file: string | undefined, id: string, many: boolean): string | undefined {
  if (file === undefined || !many) return file;
  const dot = file.lastIndexOf('.');
  return dot > 0 ? `${file.slice(0, dot)}-${id}${file.slice(dot)}` : `${file}-${id}`;
}

function chartLines(result: ScenarioResult): ChartLine[] {
  const lines: ChartLine[] = [];
  for (const size of result.sizes) {
    for (const c of size.columns) {
      if (!c.figures) continue;
      lines.push({
        name: result.sizes.length > 1 ? `${c.name} @${size.instances}` : c.name,
        series: c.figures.series,
      });
    }
  }
  return lines;
}

function printResult(result: ScenarioResult): string {
  const out: string[] = [];
  const { scenario } = result;
  for (const size of result.sizes) {
    out.push(
      textTable(
        `${scenario.id} — ${scenario.title} (${size.instances} instances, ${runLabel(size.params)}, seed ${result.seed})`,
        size.columns,
      ),
      '',
    );
  }
  if (result.sizes.length > 1) {
    const names = result.sizes[0]!.columns.filter((c) => c.figures).map((c) => c.name);
    out.push(`${scenario.id} — peak attempts/s during recovery by fleet size`);
    out.push(['instances'.padEnd(10), ...names.map((n) => n.padStart(10))].join('  '));
    for (const size of result.sizes) {
      const cells = names.map((n) =>
        String(size.columns.find((c) => c.name === n)!.figures!.peakAttemptsPerSec).padStart(10),
      );
      out.push([String(size.instances).padEnd(10), ...cells].join('  '));
    }
    out.push('');
  }
  out.push(`what must hold for recloser: ${scenario.mustHold}`, '');
  return out.join('\n');
}

export function markdownFor(result: ScenarioResult): string {
  const out: string[] = [];
  if (result.sizes.length > 1) {
    const names = result.sizes[0]!.columns.filter((c) => c.figures).map((c) => c.name);
    out.push(
      `**${result.scenario.id}** — peak attempts/s during recovery by fleet size (seed ${result.seed})`,
      '',
    );
    out.push(
      `| instances | ${names.map((n) => `\`${n}\``).join(' | ')} |`,
      `|---:|${names.map(() => '---:').join('|')}|`,
    );
    for (const size of result.sizes) {
      const cells = names.map((n) =>
        String(size.columns.find((c) => c.name === n)!.figures!.peakAttemptsPerSec),
      );
      out.push(`| ${size.instances} | ${cells.join(' | ')} |`);
    }
    out.push('');
  }
  for (const size of result.sizes) {
    out.push(
      `**${result.scenario.id}** — ${result.scenario.title}: ${size.instances} instances, ${runLabel(size.params)}, seed ${result.seed}`,
      '',
    );
    out.push(markdownTable(size.columns), '');
  }
  return out.join('\n');
}

/** S6 runs a leased work queue over each strategy's fleet: its own runner and table. */
async function runQueueScenario(args: CliArgs, many: boolean): Promise<void> {
  const result = await runS6({
    seed: args.seed,
    ...(args.instances !== undefined ? { instances: args.instances } : {}),
    ...(args.strategies ? { strategies: args.strategies } : {}),
  });
  console.log(s6Table(result));
  const json = perScenario(args.json, 'S6', many);
  if (json) write(json, JSON.stringify(s6Json(result), null, 1) + '\n');
  const chart = perScenario(args.chart, 'S6', many);
  if (chart) write(chart, s6Chart(result));
  const md = perScenario(args.markdown, 'S6', many);
  if (md) write(md, s6Markdown(result));
}

async function runOne(scenario: Scenario, args: CliArgs, many: boolean): Promise<void> {
  if (scenario === S6) return runQueueScenario(args, many);
  if (scenario.needs) {
    console.log(
      `${scenario.id} — ${scenario.title}\n  needs ${scenario.needs}; not simulated (never faked)\n`,
    );
    return;
  }
  const known = scenario.strategies ?? STRATEGIES;
  // the oracle yardsticks run only when named
  const named = [...known, ...ORACLES];
  const strategies = args.strategies ? strategiesNamed(args.strategies, named) : known;
  let bar: ReturnType<typeof progressBar> | null = null;
  let barLabel = '';
  const result = await runScenario(scenario, {
    seed: args.seed,
    ...(args.instances !== undefined ? { instances: args.instances } : {}),
    ...(args.seconds !== undefined ? { durationMs: args.seconds * 1000 } : {}),
    ...(args.provider !== undefined ? { provider: args.provider } : {}),
    ...(args.outageS !== undefined ? { outageS: args.outageS } : {}),
    ...(args.capacity !== undefined ? { capacity: args.capacity } : {}),
    ...(args.pool !== undefined ? { pool: args.pool } : {}),
    strategies,
    onProgress: (label, f) => {
      if (label !== barLabel) {
        bar?.done();
        bar = progressBar(label.padEnd(32));
        barLabel = label;
      }
      bar!.update(f);
    },
  });
  (bar as ReturnType<typeof progressBar> | null)?.done();
  console.log(printResult(result));
  const json = perScenario(args.json, scenario.id, many);
  if (json) write(json, JSON.stringify(resultJson(result), null, 1) + '\n');
  const chart = perScenario(args.chart, scenario.id, many);
  if (chart) {
    const o = result.sizes[0]!.params.outage;
    const outage: [number, number] | null = o ? [o.startMs / 1000, (o.startMs + o.durationMs) / 1000] : null;
    write(chart, chartSvg(`${scenario.id}: ${scenario.title}`, chartLines(result), outage));
  }
  const md = perScenario(args.markdown, scenario.id, many);
  if (md) write(md, markdownFor(result));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.command === 'help') {
    console.log(USAGE);
    return;
  }
  if (args.command === 'list') {
    for (const s of SCENARIOS) console.log(`${s.id}  ${s.title}${s.needs ? `  [needs ${s.needs}]` : ''}`);
    console.log(
      `strategies: ${STRATEGIES.map((s) => s.name + (s.needs ? ' (needs fallback)' : '')).join(', ')}`,
    );
    return;
  }
  if (args.command === 'live') {
    const { runLive } = await import('./live/live.js');
    await runLive({
      instances: args.instances ?? 30,
      seconds: args.seconds ?? 60,
      ...(args.url ? { url: args.url } : {}),
    });
    return;
  }
  if (args.command === 'all') {
    for (const s of SCENARIOS) await runOne(s, args, true);
    return;
  }
  const scenario = findScenario(args.command);
  if (!scenario)
    throw new Error(
      `unknown scenario ${args.command} (known: ${SCENARIOS.map((s) => s.id).join(', ')}, all, list, live)`,
    );
  await runOne(scenario, args, false);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
