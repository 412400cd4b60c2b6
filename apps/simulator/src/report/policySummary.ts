// What `npm run policy` concludes from its runs: per scenario cell how recloser fared over the
// seeds and how many runs meet issue 13's bar, then each run that does not and why.
import {
  BAR_DESCRIPTION,
  judgeBar,
  type BarCriterion,
  type BarFigures,
  type BarVerdict,
} from '../metrics/Bar.js';
import type { ProviderModel } from '../provider/Provider.js';
import { percent } from './format.js';

export interface PolicyRow {
  provider: ProviderModel;
  scenario: string;
  /** the cell's parameter as shown: "60 s" (S1 outage) or "20 %" (S2 capacity) */
  level: string;
  seed: number;
  figures: Record<string, BarFigures>;
}

export function verdictOf(row: PolicyRow): BarVerdict {
  const recloser = row.figures.recloser;
  if (!recloser)
    throw new Error(`${row.provider} ${row.scenario} ${row.level} seed ${row.seed}: recloser did not run`);
  return judgeBar(row.provider, recloser, row.figures);
}

const CRITERIA: BarCriterion[] = ['accepted', 're-trips', 'attempts', 'overruns', 'peers'];

/** The summary and the runs that fall short, as Markdown lines. */
export function summaryLines(rows: PolicyRow[]): string[] {
  const cells = new Map<string, PolicyRow[]>();
  for (const r of rows) {
    const key = `${r.provider}|${r.scenario} ${r.level}`;
    cells.set(key, [...(cells.get(key) ?? []), r]);
  }
  const verdicts = new Map(rows.map((r) => [r, verdictOf(r)]));
  const lines = [
    `Recloser over the seeds, and the runs that meet issue 13's bar (${BAR_DESCRIPTION}):`,
    '',
    '| provider | scenario | runs | recloser mean | min | max | re-trips | meet the bar | fall short on (runs) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [key, cell] of cells) {
    const [provider, scenario] = key.split('|');
    const shares = cell.map((r) => r.figures.recloser!.acceptedShareOfServable ?? 0);
    const retrips = cell.reduce((n, r) => n + r.figures.recloser!.retripsAfterRecovery, 0);
    const meets = cell.filter((r) => verdicts.get(r)!.meets).length;
    const short = CRITERIA.map((c) => ({
      c,
      n: cell.filter((r) => verdicts.get(r)!.misses.some((m) => m.criterion === c)).length,
    }))
      .filter(({ n }) => n > 0)
      .map(({ c, n }) => `${c} (${n})`)
      .join(', ');
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    lines.push(
      `| ${provider} | ${scenario} | ${cell.length} | ${percent(mean)} | ${percent(Math.min(...shares))} | ${percent(Math.max(...shares))} | ${retrips} | ${meets} | ${short || '-'} |`,
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
          `| ${r.provider} | ${r.scenario} ${r.level} | ${r.seed} | ${percent(r.figures.recloser!.acceptedShareOfServable ?? 0)} | ${verdicts
            .get(r)!
            .misses.map((m) => m.text)
            .join('; ')} |`,
      ),
    );
  return lines;
}
