import { describe, expect, it } from 'vitest';
import type { Shortfall } from '../metrics/Shortfall.js';
import { shortfallLines, summaryLines, type PolicyRow } from './policySummary.js';

const rec = (share: number, retrips = 0, over = 1.1) => ({
  acceptedShareOfServable: share,
  retripsAfterRecovery: retrips,
  maxAttemptedOverServable: over,
  budgetViolations: [] as string[],
});
const row = (
  provider: PolicyRow['provider'],
  level: string,
  seed: number,
  figures: PolicyRow['figures'],
): PolicyRow => ({
  provider,
  scenario: 'S2',
  level,
  seed,
  figures,
});

describe("npm run policy's summary", () => {
  const rows = [
    row('collapse', '20 %', 1, { recloser: rec(0.96), naive: rec(0.3) }),
    row('collapse', '20 %', 3, { recloser: rec(0.9, 2, 4.5), naive: rec(0.3) }),
    row('simple', '35 %', 1, { recloser: rec(0.95), jittered: rec(0.999) }),
  ];
  const lines = summaryLines(rows);

  it('gives per cell the runs, recloser mean/min/max, re-trips, runs meeting the bar and what falls short', () => {
    expect(lines).toContain(
      '| collapse | S2 20 % | 2 | 93.0 % | 90.0 % | 96.0 % | 2 | 1 | accepted (1), re-trips (1), attempts (1) |',
    );
    expect(lines).toContain('| simple | S2 35 % | 1 | 95.0 % | 95.0 % | 95.0 % | 0 | 0 | peers (1) |');
    expect(lines).toContain('The bar holds in 1 of 3 runs.');
  });

  it('lists each run that falls short with the reasons', () => {
    expect(lines).toContain(
      '| collapse | S2 20 % | 3 | 90.0 % | accepted 90.0 % < 95.0 %; 2 re-trips; attempts 4.50× servable > 1.2× |',
    );
    expect(lines).toContain('| simple | S2 35 % | 1 | 95.0 % | more than 3 points under jittered (99.9 %) |');
  });

  it('says when the peers did not run, so their criterion was not judged', () => {
    const only = summaryLines([row('collapse', '20 %', 1, { recloser: rec(0.96) })]);
    expect(only).toContain(
      'The bar holds in 1 of 1 runs (the peers did not run: their criterion was not judged).',
    );
  });

  it('refuses a row without recloser (the matrix is about it)', () => {
    expect(() => summaryLines([row('simple', '10 %', 7, { naive: rec(0.9) })])).toThrow(
      'recloser did not run',
    );
  });
});

describe("npm run policy's shortfall table", () => {
  const lost = (waiting: number, settled: number, reopened = 0): Shortfall => ({
    waiting: { points: waiting, seconds: 3 },
    climb: { points: 0.6, seconds: 6 },
    settled: { points: settled, seconds: 400 },
    cut: { points: 1, seconds: 90 },
    reopened: { points: reopened, seconds: reopened > 0 ? 16 : 0 },
    closed: { points: 0, seconds: 0 },
  });
  const withShortfall = (share: number, shortfall: Shortfall) => ({ ...rec(share), shortfall });

  it('gives per cell the mean points recloser lost in each phase, and their sum', () => {
    const lines = shortfallLines([
      row('collapse', '20 %', 1, { recloser: withShortfall(0.91, lost(0.7, 3.3, 2.5)), naive: rec(0.2) }),
      row('collapse', '20 %', 3, { recloser: withShortfall(0.94, lost(0.4, 3.1)) }),
      row('simple', '35 %', 1, { recloser: withShortfall(0.89, lost(0.8, 6.8)) }),
    ]);
    expect(lines).toContain(
      '| provider | scenario | runs | lost | waiting | climb | settled | cut | reopened | closed |',
    );
    // (0.7 + 0.6 + 3.3 + 1 + 2.5 + 0.4 + 0.6 + 3.1 + 1) / 2 = 6.6
    expect(lines).toContain('| collapse | S2 20 % | 2 | 6.6 | 0.6 | 0.6 | 3.2 | 1.0 | 1.3 | 0.0 |');
    expect(lines).toContain('| simple | S2 35 % | 1 | 9.2 | 0.8 | 0.6 | 6.8 | 1.0 | 0.0 | 0.0 |');
  });

  it('is left out for runs that did not keep it (a --json from before it)', () => {
    expect(shortfallLines([row('collapse', '20 %', 1, { recloser: rec(0.96) })])).toEqual([]);
  });
});
