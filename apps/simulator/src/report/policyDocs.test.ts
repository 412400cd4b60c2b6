// docs/scenarios/policy-1-13.json, main's run of every strategy that a policy change is compared
// with (`npm run policy -- --baseline …`, docs/scenarios/README.md), must come from the same runs as
// the published tables: every share in policy.md and policy-held-out.md reads the same in it, as do
// recloser's re-trips, attempts and overruns, and each page's shortfall table. A change to
// recloser's defaults that regenerates the tables and not the file fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBaseline, runKey } from './policyComparison.js';
import { percent } from './format.js';
import { shortfallLines } from './policySummary.js';

const DOCS = join(import.meta.dirname, '../../../../docs/scenarios');
const JSON_FILE = 'policy-1-13.json';

const cells = (l: string): string[] =>
  l
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());

/** The rows of the first Markdown table whose header line starts with `header`: its header and body cells. */
function tableOf(lines: string[], header: string): { header: string[]; body: string[][] } {
  const start = lines.findIndex((l) => l.startsWith(header));
  const body: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    body.push(cells(l));
  }
  return { header: start < 0 ? [] : cells(lines[start]!), body };
}

/** The first table of a policy Markdown page: its header's strategy names and each run's cells. */
function firstTable(file: string): { strategies: string[]; runs: string[][] } {
  const { header, body } = tableOf(readFileSync(join(DOCS, file), 'utf8').split('\n'), '| provider |');
  const strategies = header.filter((h) => /^`.+`$/.test(h)).map((h) => h.slice(1, -1));
  return { strategies, runs: body };
}

describe(`docs/scenarios/${JSON_FILE}`, () => {
  const rows = readBaseline(readFileSync(join(DOCS, JSON_FILE), 'utf8'), JSON_FILE);
  const byRun = new Map(rows.map((r) => [runKey(r), r]));

  it('holds every run of the matrix and the held-out seeds (1–13), each with every strategy', () => {
    expect(new Set(rows.map((r) => r.seed))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
    expect(rows).toHaveLength(13 * 2 * 6);
    for (const r of rows)
      expect(Object.keys(r.figures)).toEqual([
        'naive',
        'jittered',
        'sre-throttle',
        'aws-adaptive',
        'recloser',
      ]);
  });

  for (const page of ['policy.md', 'policy-held-out.md'])
    it(`reads as ${page} does, run by run`, () => {
      const { strategies, runs } = firstTable(page);
      expect(runs.length).toBeGreaterThan(0);
      for (const [provider, scenario, seed, ...rest] of runs) {
        // a table's first three columns name the run as runKey does: "simple | S1 45 s | 1"
        const row = byRun.get(`${provider} | ${scenario} | ${seed}`);
        expect(row, `${provider} ${scenario} seed ${seed}`).toBeDefined();
        const shares = strategies.map((s) => percent(row!.figures[s]?.acceptedShareOfServable));
        const rec = row!.figures.recloser!;
        expect(
          [
            ...shares,
            `${rec.retripsAfterRecovery}`,
            rec.maxAttemptedOverServable?.toFixed(2) ?? '-',
            `${rec.budgetViolations.length}`,
          ],
          `${provider} ${scenario} seed ${seed}`,
        ).toEqual(rest);
      }
    });

  for (const page of ['policy.md', 'policy-held-out.md'])
    it(`gives ${page}'s shortfall table from the same runs`, () => {
      const seeds = new Set(firstTable(page).runs.map(([, , seed]) => Number(seed)));
      const published = tableOf(
        readFileSync(join(DOCS, page), 'utf8').split('\n'),
        '| provider | scenario | runs | lost |',
      );
      const fromJson = tableOf(
        shortfallLines(rows.filter((r) => seeds.has(r.seed))),
        '| provider | scenario | runs | lost |',
      );
      expect(published.body.length).toBe(12);
      expect(published).toEqual(fromJson);
    });
});
