import { describe, expect, it } from 'vitest';
import { policyChartSvg, shareScale } from './policyChart.js';
import type { PolicyRow } from './policySummary.js';

const fig = (share: number, retrips = 0) => ({
  acceptedShareOfServable: share,
  retripsAfterRecovery: retrips,
  maxAttemptedOverServable: 1.1,
  budgetViolations: [] as string[],
});
const row = (provider: PolicyRow['provider'], level: string, seed: number, figures: PolicyRow['figures']) =>
  ({ provider, scenario: 'S2', level, seed, figures }) satisfies PolicyRow;

describe("npm run policy's chart", () => {
  const rows = [
    row('simple', '20 %', 1, { recloser: fig(0.978), jittered: fig(0.998), naive: fig(0.73) }),
    row('collapse', '20 %', 1, { recloser: fig(0.96), naive: fig(0.3), 'oracle-99': fig(0.98) }),
    row('collapse', '20 %', 3, { recloser: fig(0.9, 2), naive: fig(0.25), 'oracle-99': fig(0.97) }),
  ];

  it('scales shares linearly below 80 % and wider above it (0.7 of the height for the top fifth)', () => {
    expect(shareScale(0)).toBe(0);
    expect(shareScale(0.4)).toBeCloseTo(0.15, 12);
    expect(shareScale(0.8)).toBeCloseTo(0.3, 12);
    expect(shareScale(0.9)).toBeCloseTo(0.65, 12);
    expect(shareScale(1)).toBeCloseTo(1, 12);
    expect(shareScale(1.2)).toBe(shareScale(1));
    expect(shareScale(-0.1)).toBe(0);
  });

  it('draws a mark per run for recloser (filled where it meets the bar), the best peer and the oracle, by cell', () => {
    const svg = policyChartSvg('S2 <seeds 1, 3>', rows);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('S2 &lt;seeds 1, 3&gt;');
    // three recloser runs (+ two legend marks), three peers (+ one), two oracle (+ one)
    expect(svg.match(/<circle /g)).toHaveLength(5);
    expect(svg.match(/<rect x=/g)?.length).toBe(1 + 3 + 1); // the plot frame, the marks, the legend
    expect(svg.match(/<path /g)).toHaveLength(3);
    expect(svg).toContain('collapse | S2 20 % seed 1: recloser 96.0 %, meets the bar');
    expect(svg).toContain('collapse | S2 20 % seed 3: recloser 90.0 %</title>');
    // the simple run trails the best peer by 2 points: within the bar's 3
    expect(svg).toContain('simple | S2 20 % seed 1: recloser 97.8 %, meets the bar');
    // two cells, each labelled; a rule between the providers
    expect(svg.match(/>S2 20 %<\/text>/g)).toHaveLength(2);
    expect(svg).toContain("issue 13's bar (95 %)");
    // the oracle's legend entry only where an oracle ran
    expect(svg).toContain('best fixed share of capacity (oracle)');
    expect(policyChartSvg('no oracle', rows.slice(0, 1))).not.toContain('(oracle)');
  });
});
