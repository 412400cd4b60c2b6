// `npm run policy -- --baseline FILE`: this run beside an earlier one (that run's --json), so a
// policy change is measured as docs/scenarios asks, on more seeds than three and cell by cell:
// recloser's mean, re-trips and runs meeting the bar before and now, over the runs both have, where
// the points moved (the change in each phase's loss, metrics/Shortfall.ts, where both runs kept it),
// then each run whose share moved by MOVED_POINTS or more or whose verdict changed. A verdict is judged on
// the peers each run had (a recloser-only run does not judge the peer criterion).
import { readFileSync } from 'node:fs';
import { SHORTFALL_PHASES } from '../metrics/Shortfall.js';
import { PROVIDER_MODELS } from '../provider/Provider.js';
import { percent } from './format.js';
import {
  byCell,
  cellOf,
  recloserOver,
  recloserRetrips,
  recloserShare,
  shortfallByCell,
  verdictOf,
  type PolicyRow,
} from './policySummary.js';

/** A run's share moving less than this (points of servable) is not listed: the tables round to 0.1. */
export const MOVED_POINTS = 0.1;

/** What names a run across runs of the matrix (and a table's first three columns): its cell and seed. */
export const runKey = (r: PolicyRow): string => `${cellOf(r)} | ${r.seed}`;
/** A change in points of servable, signed: "+2.6", "−0.8". */
const signedPoints = (d: number): string => `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(1)}`;
/** A change in share of servable, in points. */
const points = (d: number): string => signedPoints(d * 100);

const baselineError = (flag: string, file: string, what: string): Error =>
  new Error(`${flag}: ${file}: ${what}`);

/** An earlier run's rows from its --json file; an error names the file (and, as readBaseline, what is wrong). */
export function loadBaseline(file: string, flag = '--baseline'): PolicyRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw baselineError(flag, file, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
  return readBaseline(text, file, flag);
}

/** An earlier run's rows, read from its --json text; an error names the file, the row and the field. */
export function readBaseline(text: string, file: string, flag = '--baseline'): PolicyRow[] {
  const fail = (what: string): never => {
    throw baselineError(flag, file, what);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return fail(`not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(parsed)) return fail('not the rows `npm run policy -- --json` writes (an array)');
  parsed.forEach((value: unknown, i) => {
    const at = (field: string, why: string): never => fail(`row ${i + 1}: ${field} ${why}`);
    const row = (value ?? {}) as Record<string, unknown>;
    if (!PROVIDER_MODELS.includes(row.provider as never))
      at('provider', `is not one of ${PROVIDER_MODELS.join(', ')}`);
    if (typeof row.scenario !== 'string') at('scenario', 'is not a string');
    if (typeof row.level !== 'string') at('level', 'is not a string');
    if (!Number.isInteger(row.seed)) at('seed', 'is not an integer');
    const figures = (row.figures ?? {}) as Record<string, Record<string, unknown> | null>;
    const rec = figures.recloser;
    if (!rec) return at('figures.recloser', 'is missing');
    // what the bar reads (metrics/Bar.ts): a figure of another type would be judged silently wrong
    const numberOrNull = (v: unknown): boolean => v === null || typeof v === 'number';
    for (const [name, f] of Object.entries(figures))
      if (!numberOrNull(f?.acceptedShareOfServable))
        at(`figures.${name}.acceptedShareOfServable`, 'is not a number');
    if (typeof rec.retripsAfterRecovery !== 'number')
      at('figures.recloser.retripsAfterRecovery', 'is not a number');
    if (!numberOrNull(rec.maxAttemptedOverServable))
      at('figures.recloser.maxAttemptedOverServable', 'is not a number');
    if (!Array.isArray(rec.budgetViolations)) at('figures.recloser.budgetViolations', 'is not a list');
    // the shortfall table's (absent in files written before it)
    if (rec.shortfall !== undefined && rec.shortfall !== null) {
      const shortfall = rec.shortfall as Record<string, { points?: unknown } | undefined>;
      for (const phase of SHORTFALL_PHASES)
        if (typeof shortfall[phase]?.points !== 'number')
          at(`figures.recloser.shortfall.${phase}.points`, 'is not a number');
    }
  });
  return parsed as PolicyRow[];
}

/** The comparison, as Markdown lines: per cell, all cells, then the runs that moved. */
export function comparisonLines(rows: PolicyRow[], baseline: PolicyRow[], file: string): string[] {
  const before = new Map(baseline.map((r) => [runKey(r), r]));
  const pairs = rows.flatMap((now) => {
    const was = before.get(runKey(now));
    return was ? [{ now, was }] : [];
  });
  if (pairs.length === 0) return [`Against ${file}: no run in common (same provider, scenario and seed).`];
  type Pair = (typeof pairs)[number];
  const line = (label: string, ps: Pair[]): string => {
    const was = recloserOver(ps.map((p) => p.was));
    const now = recloserOver(ps.map((p) => p.now));
    return `| ${label} | ${ps.length} | ${percent(was.mean)} | ${percent(now.mean)} | ${points(now.mean - was.mean)} | ${was.retrips} | ${now.retrips} | ${was.meeting} | ${now.meeting} |`;
  };
  const lines = [
    `Against ${file} (${pairs.length} runs in common): recloser's mean share of servable, re-trips and runs meeting the bar, before and now:`,
    '',
    '| provider | scenario | runs | mean before | now | points | re-trips before | now | meet the bar before | now |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...[...byCell(pairs, (p) => p.now)].map(([cell, ps]) => line(cell, ps)),
    line('all | every cell', pairs),
  ];
  // where the points moved: per cell, the change in each phase's mean loss, over the runs both kept it for
  const phased = pairs.filter((p) => p.now.figures.recloser?.shortfall && p.was.figures.recloser?.shortfall);
  if (phased.length > 0) {
    const was = new Map(shortfallByCell(phased.map((p) => p.was)).map((c) => [c.cell, c.mean]));
    lines.push(
      '',
      `Where the points moved (${phased.length} runs with the shortfall by phase before and now): per cell, the change in the mean points of servable lost per run in each phase (− = less lost now):`,
      '',
      `| provider | scenario | runs | lost | ${SHORTFALL_PHASES.join(' | ')} |`,
      `|---|---|---:|---:|${SHORTFALL_PHASES.map(() => '---:').join('|')}|`,
      ...shortfallByCell(phased.map((p) => p.now)).map(({ cell, runs, mean }) => {
        const d = SHORTFALL_PHASES.map((ph) => mean[ph] - was.get(cell)![ph]);
        return `| ${cell} | ${runs.length} | ${signedPoints(d.reduce((a, b) => a + b, 0))} | ${d.map(signedPoints).join(' | ')} |`;
      }),
    );
  }
  const meets = (r: PolicyRow): boolean => verdictOf(r).meets;
  const moved = pairs.filter(
    (p) =>
      Math.abs(recloserShare(p.now) - recloserShare(p.was)) * 100 >= MOVED_POINTS - 1e-9 ||
      meets(p.now) !== meets(p.was),
  );
  const verdict = (r: PolicyRow): string => (meets(r) ? 'meets' : 'short');
  lines.push(
    '',
    moved.length === 0
      ? `No run moved by ${MOVED_POINTS} point or more, and no verdict changed.`
      : `Runs that moved by ${MOVED_POINTS} point or more or changed verdict (${moved.length}):`,
  );
  if (moved.length > 0)
    lines.push(
      '',
      '| provider | scenario | seed | before | now | points | re-trips before | now | bar before | now |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|---|',
      ...moved.map(
        ({ now, was }) =>
          `| ${cellOf(now)} | ${now.seed} | ${percent(recloserShare(was))} | ${percent(recloserShare(now))} | ${points(recloserShare(now) - recloserShare(was))} | ${recloserRetrips(was)} | ${recloserRetrips(now)} | ${verdict(was)} | ${verdict(now)} |`,
      ),
    );
  return lines;
}
