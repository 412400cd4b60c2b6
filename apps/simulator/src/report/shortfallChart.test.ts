import { describe, expect, it } from 'vitest';
import type { Shortfall } from '../metrics/Shortfall.js';
import type { PolicyRow } from './policySummary.js';
import { shortfallChartSvg } from './shortfallChart.js';

const lost = (settled: number, reopened = 0, closed = 0): Shortfall => ({
  waiting: { points: 0.5, seconds: 3 },
  climb: { points: 0.7, seconds: 6 },
  settled: { points: settled, seconds: 400 },
  cut: { points: 2, seconds: 90 },
  reopened: { points: reopened, seconds: reopened > 0 ? 16 : 0 },
  closed: { points: closed, seconds: closed !== 0 ? 5 : 0 },
});
const rec = (share: number, shortfall?: Shortfall) => ({
  acceptedShareOfServable: share,
  retripsAfterRecovery: 0,
  maxAttemptedOverServable: 1.1,
  budgetViolations: [] as string[],
  ...(shortfall ? { shortfall } : {}),
});
const row = (provider: PolicyRow['provider'], level: string, seed: number, figures: PolicyRow['figures']) =>
  ({ provider, scenario: 'S2', level, seed, figures }) satisfies PolicyRow;

describe("npm run policy's shortfall chart", () => {
  const rows = [
    row('collapse', '20 %', 1, { recloser: rec(0.91, lost(3, 2.8)) }),
    row('collapse', '20 %', 3, { recloser: rec(0.93, lost(3.8)) }),
    row('simple', '35 %', 1, { recloser: rec(0.89, lost(7.8, 0, -0.2)) }),
  ];
  const svg = shortfallChartSvg('S2 <seeds 1, 3>', rows);

  it('stacks per cell the mean points lost in each phase, labelled with their sum', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('S2 &lt;seeds 1, 3&gt;');
    // collapse 20 %: four phases with losses and a re-trip in one run; simple 35 %: four (closed gave back)
    expect(svg).toContain('<title>collapse S2 20 %: settled 3.4 points (mean of 2 runs)</title>');
    expect(svg).toContain('<title>collapse S2 20 %: reopened 1.4 points (mean of 2 runs)</title>');
    expect(svg).toContain('<title>simple S2 35 %: settled 7.8 points (mean of 1 runs)</title>');
    expect(svg).not.toContain('simple S2 35 %: closed');
    expect(svg.match(/<rect x="[\d.]+" y=/g)).toHaveLength(1 + 5 + 4); // the plot frame, the segments
    // 0.5 + 0.7 + 3.4 + 2 + 1.4 and 0.5 + 0.7 + 7.8 + 2
    expect(svg).toMatch(/>8\.0<\/text>/);
    expect(svg).toMatch(/>11\.0<\/text>/);
    expect(svg).toContain("what issue 13's bar allows (5 points)");
  });

  it('draws the bars to scale: a phase twice as large is twice as tall', () => {
    const heights = new Map(
      [...svg.matchAll(/height="([\d.]+)"[^>]*><title>([^<]+)<\/title>/g)].map((m) => [m[2], Number(m[1])]),
    );
    const cut = heights.get('collapse S2 20 %: cut 2.0 points (mean of 2 runs)')!;
    const climb = heights.get('collapse S2 20 %: climb 0.7 points (mean of 2 runs)')!;
    expect(cut / climb).toBeCloseTo(2 / 0.7, 1);
  });

  it('is an empty plot when no run kept its shortfall (a --json from before it)', () => {
    expect(shortfallChartSvg('none', [row('simple', '10 %', 1, { recloser: rec(0.9) })])).not.toContain(
      '<title>',
    );
  });
});
