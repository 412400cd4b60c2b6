// `npm run policy -- --shortfall-chart FILE`: when recloser lost what it lost, as one SVG (no
// dependency). A stacked bar per cell (provider, scenario, outage or capacity): the mean points of
// servable work its runs lost in each phase of the recovery (metrics/Shortfall.ts), with a dashed
// line at the 5 points issue 13's bar allows.
import { BAR } from '../metrics/Bar.js';
import { SHORTFALL_PHASES, type ShortfallPhase } from '../metrics/Shortfall.js';
import { shortfallByCell, type PolicyRow } from './policySummary.js';
import { esc, legendRow, MATRIX_CHART, matrixCellLabel, matrixChartOpen } from './svg.js';

const { W, H, M } = MATRIX_CHART;
const ALLOWED = '#2ca02c';
const PHASE_COLOURS: Record<ShortfallPhase, string> = {
  waiting: '#9467bd',
  climb: '#1f77b4',
  settled: '#ff7f0e',
  cut: '#d62728',
  reopened: '#8c564b',
  closed: '#7f7f7f',
};

export function shortfallChartSvg(title: string, rows: PolicyRow[]): string {
  const cells = shortfallByCell(rows);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const colW = plotW / Math.max(1, cells.length);
  // a phase can give back (a queue draining after it): only what was lost is stacked
  const lostIn = (mean: Record<ShortfallPhase, number>): number =>
    SHORTFALL_PHASES.reduce((sum, p) => sum + Math.max(0, mean[p]), 0);
  const allowed = (1 - BAR.minAcceptedShare) * 100;
  const top = Math.max(allowed * 2, ...cells.map((c) => lostIn(c.mean)));
  const step = top > 20 ? 5 : top > 10 ? 2 : 1;
  const max = Math.ceil(top / step) * step;
  const yOf = (points: number): number => plotH - (points / max) * plotH;
  const out = matrixChartOpen(title, plotW, plotH);
  for (let v = 0; v <= max; v += step) {
    const y = yOf(v).toFixed(1);
    out.push(
      `<line x1="-4" x2="${plotW}" y1="${y}" y2="${y}" stroke="#e4e4e4"/>`,
      `<text x="-8" y="${y}" font-size="10" text-anchor="end" dominant-baseline="middle">${v}</text>`,
    );
  }
  cells.forEach(({ runs, mean }, i) => {
    const x0 = i * colW;
    const { provider, scenario, level } = runs[0]!;
    out.push(...matrixCellLabel(x0, colW, plotH, runs[0]!));
    let below = 0;
    for (const phase of SHORTFALL_PHASES) {
      const points = Math.max(0, mean[phase]);
      if (points === 0) continue;
      const y = yOf(below + points);
      out.push(
        `<rect x="${(x0 + colW * 0.2).toFixed(1)}" y="${y.toFixed(1)}" width="${(colW * 0.6).toFixed(1)}" height="${(yOf(below) - y).toFixed(1)}" fill="${PHASE_COLOURS[phase]}"><title>${esc(`${provider} ${scenario} ${level}: ${phase} ${points.toFixed(1)} points (mean of ${runs.length} runs)`)}</title></rect>`,
      );
      below += points;
    }
    out.push(
      `<text x="${(x0 + colW / 2).toFixed(1)}" y="${(yOf(below) - 4).toFixed(1)}" font-size="10" text-anchor="middle">${below.toFixed(1)}</text>`,
    );
  });
  const allowedY = yOf(allowed).toFixed(1);
  out.push(
    `<line x1="0" x2="${plotW}" y1="${allowedY}" y2="${allowedY}" stroke="${ALLOWED}" stroke-dasharray="6 3"/>`,
  );
  // legend, under the axis labels
  const ly = plotH + 58;
  const legend: [string, string][] = [
    ...SHORTFALL_PHASES.map((p): [string, string] => [
      `<rect x="-5" y="-5" width="10" height="10" fill="${PHASE_COLOURS[p]}"/>`,
      p,
    ]),
    [
      `<line x1="-8" x2="8" y1="0" y2="0" stroke="${ALLOWED}" stroke-dasharray="6 3"/>`,
      `what issue 13's bar allows (${allowed.toFixed(0)} points)`,
    ],
  ];
  out.push(...legendRow(legend, ly));
  out.push(
    `<text x="0" y="${ly + 22}" font-size="10" fill="#555">points of servable work recloser lost after the outage, mean per run, by the phase of its recovery it lost them in</text>`,
    '</g>',
    '</svg>',
  );
  return out.join('\n') + '\n';
}
