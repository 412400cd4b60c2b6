// docs/scenarios/policy-1-13.json, main's run of every strategy that a policy change is compared
// with (`npm run policy -- --baseline …`, docs/scenarios/README.md), must come from the same runs as
// the published tables: every share in policy.md and policy-held-out.md reads the same in it, as do
// recloser's re-trips, attempts and overruns. A change to recloser's defaults that regenerates the
// tables and not the file fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBaseline, runKey } from './policyComparison.js';
import { percent } from './format.js';

const DOCS = join(import.meta.dirname, '../../../../docs/scenarios');
const JSON_FILE = 'policy-1-13.json';

/** The first table of a policy Markdown page: its header's strategy names and each run's cells. */
function firstTable(file: string): { strategies: string[]; runs: string[][] } {
  const lines = readFileSync(join(DOCS, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith('| provider |'));
  const cells = (l: string): string[] =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const header = cells(lines[start]!);
  const strategies = header.filter((h) => /^`.+`$/.test(h)).map((h) => h.slice(1, -1));
  const runs: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith('|')) break;
    runs.push(cells(l));
  }
  return { strategies, runs };
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
});
