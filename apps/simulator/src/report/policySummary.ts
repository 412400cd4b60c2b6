// What `npm run policy` concludes from its runs: per scenario cell how recloser fared over the
// seeds and how many runs meet issue 13's bar, then each run that does not and why.
import {
  BAR_DESCRIPTION,
  judgeBar,
  type BarCriterion,
  type BarFigures,
  type BarVerdict,
} from '../metrics/Bar.js';
import { SHORTFALL_PHASES, type Shortfall, type ShortfallPhase } from '../metrics/Shortfall.js';
import type { ProviderModel } from '../provider/Provider.js';
import { percent } from './format.js';

export interface PolicyRow {
  provider: ProviderModel;
  scenario: string;
  /** the cell's parameter as shown: "60 s" (S1 outage) or "20 %" (S2 capacity) */
  level: string;
  seed: number;
  /** per strategy; recloser's shortfall by phase where the run kept it (older --json files do not) */
  figures: Record<string, BarFigures & { shortfall?: Shortfall | null }>;
}

export function verdictOf(row: PolicyRow): BarVerdict {
  const recloser = row.figures.recloser;
  if (!recloser)
    throw new Error(`${row.provider} ${row.scenario} ${row.level} seed ${row.seed}: recloser did not run`);
  return judgeBar(row.provider, recloser, row.figures);
}

const CRITERIA: BarCriterion[] = ['accepted', 're-trips', 'attempts', 'overruns', 'peers'];

/** The cell a run belongs to, as the tables name it: "collapse | S2 20 %". */
export const cellOf = (r: PolicyRow): string => `${r.provider} | ${r.scenario} ${r.level}`;

/** `items` grouped by the cell of their run, cells in the order first seen. */
export function byCell<T>(items: T[], runOf: (item: T) => PolicyRow): Map<string, T[]> {
  const cells = new Map<string, T[]>();
  for (const item of items) {
    const key = cellOf(runOf(item));
    const cell = cells.get(key);
    if (cell) cell.push(item);
    else cells.set(key, [item]);
  }
  return cells;
}

/** Recloser's share of servable in a run (0 when none was measured, as the bar reads it). */
export const recloserShare = (r: PolicyRow): number => r.figures.recloser?.acceptedShareOfServable ?? 0;

/** Recloser's re-trips after the recovery in a run. */
export const recloserRetrips = (r: PolicyRow): number => r.figures.recloser?.retripsAfterRecovery ?? 0;

/** Recloser over some runs: mean, min and max share, re-trips summed, runs meeting the bar. */
export function recloserOver(runs: PolicyRow[]): {
  mean: number;
  min: number;
  max: number;
  retrips: number;
  meeting: number;
} {
  const shares = runs.map(recloserShare);
  return {
    mean: shares.reduce((a, b) => a + b, 0) / shares.length,
    min: Math.min(...shares),
    max: Math.max(...shares),
    retrips: runs.reduce((n, r) => n + recloserRetrips(r), 0),
    meeting: runs.filter((r) => verdictOf(r).meets).length,
  };
}

/** The summary and the runs that fall short, as Markdown lines. */
export function summaryLines(rows: PolicyRow[]): string[] {
  const verdicts = new Map(rows.map((r) => [r, verdictOf(r)]));
  const lines = [
    `Recloser over the seeds, and the runs that meet issue 13's bar (${BAR_DESCRIPTION}):`,
    '',
    '| provider | scenario | runs | recloser mean | min | max | re-trips | meet the bar | fall short on (runs) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [cell, runs] of byCell(rows, (r) => r)) {
    const over = recloserOver(runs);
    const short = CRITERIA.map((c) => ({
      c,
      n: runs.filter((r) => verdicts.get(r)!.misses.some((m) => m.criterion === c)).length,
    }))
      .filter(({ n }) => n > 0)
      .map(({ c, n }) => `${c} (${n})`)
      .join(', ');
    lines.push(
      `| ${cell} | ${runs.length} | ${percent(over.mean)} | ${percent(over.min)} | ${percent(over.max)} | ${over.retrips} | ${over.meeting} | ${short || '-'} |`,
    );
  }
  const meeting = rows.filter((r) => verdicts.get(r)!.meets).length;
  const unjudged = rows.filter((r) => !verdicts.get(r)!.peersJudged).length;
  const caveat =
    unjudged === 0
      ? ''
      : unjudged === rows.length
        ? ' (the peers did not run: their criterion was not judged)'
        : ` (the peers did not run in ${unjudged} of them: their criterion was not judged there)`;
  lines.push('', `The bar holds in ${meeting} of ${rows.length} runs${caveat}.`);
  const failing = rows.filter((r) => !verdicts.get(r)!.meets);
  if (failing.length > 0)
    lines.push(
      '',
      '| provider | scenario | seed | recloser | falls short on |',
      '|---|---|---:|---:|---|',
      ...failing.map(
        (r) =>
          `| ${cellOf(r)} | ${r.seed} | ${percent(recloserShare(r))} | ${verdicts
            .get(r)!
            .misses.map((m) => m.text)
            .join('; ')} |`,
      ),
    );
  return lines;
}

/** Per cell of the runs that kept it: recloser's mean points of servable lost per run in each phase (metrics/Shortfall.ts). */
export function shortfallByCell(
  rows: PolicyRow[],
): { cell: string; runs: PolicyRow[]; mean: Record<ShortfallPhase, number> }[] {
  const kept = rows.filter((r) => r.figures.recloser?.shortfall);
  return [...byCell(kept, (r) => r)].map(([cell, runs]) => ({
    cell,
    runs,
    mean: Object.fromEntries(
      SHORTFALL_PHASES.map((p) => [
        p,
        runs.reduce((sum, r) => sum + r.figures.recloser!.shortfall![p].points, 0) / runs.length,
      ]),
    ) as Record<ShortfallPhase, number>,
  }));
}

/**
 * Where recloser's runs lost what they lost, per cell: the mean points of servable lost in each
 * phase of its recovery, as Markdown lines; none when no run kept them.
 */
export function shortfallLines(rows: PolicyRow[]): string[] {
  const cells = shortfallByCell(rows);
  if (cells.length === 0) return [];
  const lines = [
    "Where recloser's runs fell short of servable: the mean points of servable work lost per run in each phase of the recovery (waiting: to the first ramp; climb: the first ramp's growth; settled: at a level the ramp settled on; cut: a degrade, its drain and the bisection back; reopened: a re-trip, its probes and the climb back; closed: the top level held):",
    '',
    `| provider | scenario | runs | lost | ${SHORTFALL_PHASES.join(' | ')} |`,
    `|---|---|---:|---:|${SHORTFALL_PHASES.map(() => '---:').join('|')}|`,
  ];
  const points = (n: number): string => n.toFixed(1);
  for (const { cell, runs, mean } of cells) {
    const lost = SHORTFALL_PHASES.reduce((sum, p) => sum + mean[p], 0);
    lines.push(
      `| ${cell} | ${runs.length} | ${points(lost)} | ${SHORTFALL_PHASES.map((p) => points(mean[p])).join(' | ')} |`,
    );
  }
  return lines;
}
