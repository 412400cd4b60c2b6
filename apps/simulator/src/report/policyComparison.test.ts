import { describe, expect, it } from 'vitest';
import { comparisonLines, readBaseline } from './policyComparison.js';
import type { Shortfall } from '../metrics/Shortfall.js';
import type { PolicyRow } from './policySummary.js';

const rec = (share: number, retrips = 0) => ({
  acceptedShareOfServable: share,
  retripsAfterRecovery: retrips,
  maxAttemptedOverServable: 1.1,
  budgetViolations: [] as string[],
});
const row = (
  provider: PolicyRow['provider'],
  level: string,
  seed: number,
  share: number,
  retrips = 0,
): PolicyRow => ({
  provider,
  scenario: 'S2',
  level,
  seed,
  figures: { recloser: rec(share, retrips) },
});

describe("npm run policy's comparison with a baseline (--baseline)", () => {
  const before = [
    row('collapse', '20 %', 1, 0.9, 1),
    row('collapse', '20 %', 3, 0.96),
    row('simple', '35 %', 1, 0.95),
    row('simple', '35 %', 9, 0.5), // not in the new run: left out
  ];
  const now = [
    row('collapse', '20 %', 1, 0.951),
    row('collapse', '20 %', 3, 0.9608), // moved less than a tenth of a point: not listed
    row('simple', '35 %', 1, 0.93),
    row('simple', '10 %', 1, 0.99), // not in the baseline: left out
  ];
  const lines = comparisonLines(now, before, 'base.json');

  it('gives per cell and over every cell the mean, re-trips and runs meeting the bar, before and now, over the runs both have', () => {
    expect(lines[0]).toBe(
      "Against base.json (3 runs in common): recloser's mean share of servable, re-trips and runs meeting the bar, before and now:",
    );
    expect(lines).toContain('| collapse | S2 20 % | 2 | 93.0 % | 95.6 % | +2.6 | 1 | 0 | 1 | 2 |');
    expect(lines).toContain('| simple | S2 35 % | 1 | 95.0 % | 93.0 % | −2.0 | 0 | 0 | 1 | 0 |');
    expect(lines).toContain('| all | every cell | 3 | 93.7 % | 94.7 % | +1.1 | 1 | 0 | 2 | 2 |');
  });

  it('lists the runs that moved by a tenth of a point or more, or changed verdict', () => {
    expect(lines).toContain('Runs that moved by 0.1 point or more or changed verdict (2):');
    expect(lines).toContain('| collapse | S2 20 % | 1 | 90.0 % | 95.1 % | +5.1 | 1 | 0 | short | meets |');
    expect(lines).toContain('| simple | S2 35 % | 1 | 95.0 % | 93.0 % | −2.0 | 0 | 0 | meets | short |');
    expect(lines.some((l) => l.startsWith('| collapse | S2 20 % | 3 |'))).toBe(false);
  });

  it('says where the points moved, phase by phase, over the runs that kept their shortfall before and now', () => {
    const phases = (settled: number, reopened: number): Shortfall => ({
      waiting: { points: 0.4, seconds: 3 },
      climb: { points: 0.8, seconds: 7 },
      settled: { points: settled, seconds: 400 },
      cut: { points: 2, seconds: 90 },
      reopened: { points: reopened, seconds: reopened > 0 ? 16 : 0 },
      closed: { points: 0, seconds: 0 },
    });
    const withPhases = (r: PolicyRow, shortfall: Shortfall): PolicyRow => ({
      ...r,
      figures: { recloser: { ...r.figures.recloser!, shortfall } },
    });
    const was = [
      withPhases(before[0]!, phases(4.3, 2.5)),
      withPhases(before[1]!, phases(3.8, 0)),
      before[2]!,
    ];
    const is = [withPhases(now[0]!, phases(2.3, 0)), withPhases(now[1]!, phases(2.3, 0.2)), now[2]!];
    const moved = comparisonLines(is, was, 'base.json');
    expect(moved).toContain(
      'Where the points moved (2 runs with the shortfall by phase before and now): per cell, the change in the mean points of servable lost per run in each phase (− = less lost now):',
    );
    // settled (2.3 + 2.3 − 4.3 − 3.8) / 2 = −1.75, reopened (0 + 0.2 − 2.5 − 0) / 2 = −1.15
    expect(moved).toContain('| collapse | S2 20 % | 2 | −2.9 | +0.0 | +0.0 | −1.8 | +0.0 | −1.1 | +0.0 |');
    // the simple run kept no shortfall: no row for its cell, and no table without any
    expect(moved.some((l) => l.startsWith('| simple | S2 35 % | 1 | −'))).toBe(false);
    expect(lines.some((l) => l.startsWith('Where the points moved'))).toBe(false);
  });

  it('says so when nothing moved, and when no run is in common', () => {
    expect(comparisonLines(now, now, 'same.json')).toContain(
      'No run moved by 0.1 point or more, and no verdict changed.',
    );
    expect(comparisonLines(now, [row('simple', '35 %', 7, 0.9)], 'other.json')).toEqual([
      'Against other.json: no run in common (same provider, scenario and seed).',
    ]);
  });

  it('reads what --json wrote, and names the file, the row and the field of anything else', () => {
    expect(readBaseline(JSON.stringify(before), 'b.json')).toEqual(before);
    expect(() => readBaseline('{', 'b.json')).toThrow(/^--baseline: b\.json: not JSON/);
    expect(() => readBaseline('{"rows": []}', 'b.json')).toThrow('--baseline: b.json: not the rows');
    const broken = (patch: Record<string, unknown>): string =>
      JSON.stringify([before[0], { ...before[1], ...patch }]);
    expect(() => readBaseline(broken({ provider: 'flaky' }), 'b.json')).toThrow(
      '--baseline: b.json: row 2: provider is not one of simple, collapse',
    );
    expect(() => readBaseline(broken({ seed: 1.5 }), 'b.json')).toThrow('row 2: seed is not an integer');
    expect(() => readBaseline(broken({ figures: { naive: rec(0.3) } }), 'b.json')).toThrow(
      'row 2: figures.recloser is missing',
    );
    expect(() =>
      readBaseline(broken({ figures: { recloser: { ...rec(0.9), retripsAfterRecovery: '2' } } }), 'b.json'),
    ).toThrow('row 2: figures.recloser.retripsAfterRecovery is not a number');
    // the figures the bar reads: absent or of another type they would be judged silently wrong
    const { maxAttemptedOverServable: _absent, ...noMax } = rec(0.9);
    expect(() => readBaseline(broken({ figures: { recloser: noMax } }), 'b.json')).toThrow(
      'row 2: figures.recloser.maxAttemptedOverServable is not a number',
    );
    expect(() =>
      readBaseline(
        broken({ figures: { recloser: rec(0.9), jittered: { acceptedShareOfServable: '99 %' } } }),
        'b.json',
      ),
    ).toThrow('row 2: figures.jittered.acceptedShareOfServable is not a number');
    // the shortfall by phase is optional (files from before it), but read as numbers when there
    const shortfall = { waiting: { points: 0.7 }, climb: { points: 0.6 }, settled: { points: '3.3' } };
    expect(() =>
      readBaseline(broken({ figures: { recloser: { ...rec(0.9), shortfall } } }), 'b.json'),
    ).toThrow('row 2: figures.recloser.shortfall.settled.points is not a number');
    // --from reads the same files, and its errors name it
    expect(() => readBaseline('{', 'b.json', '--from')).toThrow(/^--from: b\.json: not JSON/);
  });
});
