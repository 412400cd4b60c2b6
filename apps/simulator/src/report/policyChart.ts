// `npm run policy -- --chart FILE`: issue 13's matrix as one SVG (no dependency). A column per
// cell (provider, scenario, outage or capacity), a row of marks per seed: recloser's accepted
// share of servable (filled when the run meets the bar, hollow when it does not), the best peer's,
// and the best fixed share (oracle) when it ran; a dashed line at the bar's 95 %.
import { BAR, bestAmong, PEERS } from '../metrics/Bar.js';
import { ORACLE_NAMES } from '../strategies/oracle.js';
import { percent } from './format.js';
import { cellOf, recloserShare, verdictOf, byCell, type PolicyRow } from './policySummary.js';
import { esc, legendRow, MATRIX_CHART, matrixCellLabel, matrixChartOpen } from './svg.js';

const { W, H, M } = MATRIX_CHART;
const MEETS = '#2ca02c';
const SHORT = '#d62728';
const PEER = '#7f7f7f';
const ORACLE = '#1f77b4';

/** Shares above this get ZOOM_HEIGHT of the plot: the runs that matter differ by a point or two there. */
const ZOOM_FROM = 0.8;
const ZOOM_HEIGHT = 0.7;

/** Where a share sits on the plot's height, 0 to 1: linear below ZOOM_FROM and above it, wider above. */
export function shareScale(share: number): number {
  const v = Math.min(1, Math.max(0, share));
  return v <= ZOOM_FROM
    ? (v / ZOOM_FROM) * (1 - ZOOM_HEIGHT)
    : 1 - ZOOM_HEIGHT + ((v - ZOOM_FROM) / (1 - ZOOM_FROM)) * ZOOM_HEIGHT;
}

export function policyChartSvg(title: string, rows: PolicyRow[]): string {
  const cells = [...byCell(rows, (r) => r)];
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const colW = plotW / Math.max(1, cells.length);
  const yOf = (share: number): number => plotH - shareScale(share) * plotH;
  const out = matrixChartOpen(title, plotW, plotH);
  for (const v of [0, 0.2, 0.4, 0.6, 0.8, 0.85, 0.9, 0.95, 1]) {
    const y = yOf(v).toFixed(1);
    out.push(
      `<line x1="-4" x2="${plotW}" y1="${y}" y2="${y}" stroke="${v === ZOOM_FROM ? '#999' : '#e4e4e4'}"${v === ZOOM_FROM ? ' stroke-dasharray="2 2"' : ''}/>`,
      `<text x="-8" y="${y}" font-size="10" text-anchor="end" dominant-baseline="middle">${Math.round(v * 100)} %</text>`,
    );
  }
  const barY = yOf(BAR.minAcceptedShare).toFixed(1);
  out.push(`<line x1="0" x2="${plotW}" y1="${barY}" y2="${barY}" stroke="${MEETS}" stroke-dasharray="6 3"/>`);
  cells.forEach(([, runs], i) => {
    const x0 = i * colW;
    if (i > 0 && runs[0]!.provider !== cells[i - 1]![1][0]!.provider)
      out.push(`<line x1="${x0.toFixed(1)}" x2="${x0.toFixed(1)}" y1="0" y2="${plotH}" stroke="#999"/>`);
    out.push(...matrixCellLabel(x0, colW, plotH, runs[0]!));
    // the seeds side by side within the column, each with its three marks
    runs.forEach((r, k) => {
      const x = x0 + (colW * (k + 1)) / (runs.length + 1);
      const run = `${cellOf(r)} seed ${r.seed}`;
      const share = recloserShare(r);
      const peer = bestAmong(r.figures, PEERS)?.share ?? null;
      const oracle = bestAmong(r.figures, ORACLE_NAMES)?.share ?? null;
      if (peer !== null)
        out.push(
          `<rect x="${(x - 3).toFixed(1)}" y="${(yOf(peer) - 3).toFixed(1)}" width="6" height="6" fill="${PEER}"><title>${esc(`${run}: best peer ${percent(peer)}`)}</title></rect>`,
        );
      if (oracle !== null) {
        const y = yOf(oracle);
        out.push(
          `<path d="M${x.toFixed(1)} ${(y - 4).toFixed(1)} l4 4 l-4 4 l-4 -4 z" fill="${ORACLE}"><title>${esc(`${run}: best fixed share ${percent(oracle)}`)}</title></path>`,
        );
      }
      const meets = verdictOf(r).meets;
      const colour = meets ? MEETS : SHORT;
      out.push(
        `<circle cx="${x.toFixed(1)}" cy="${yOf(share).toFixed(1)}" r="4" fill="${meets ? colour : 'white'}" stroke="${colour}" stroke-width="2"><title>${esc(`${run}: recloser ${percent(share)}${meets ? ', meets the bar' : ''}`)}</title></circle>`,
      );
    });
  });
  // legend, under the axis labels
  const ly = plotH + 58;
  const legend: [string, string][] = [
    [
      `<circle cx="0" cy="0" r="4" fill="${MEETS}" stroke="${MEETS}" stroke-width="2"/>`,
      'recloser, meets the bar',
    ],
    [
      `<circle cx="0" cy="0" r="4" fill="white" stroke="${SHORT}" stroke-width="2"/>`,
      'recloser, falls short',
    ],
    [`<rect x="-3" y="-3" width="6" height="6" fill="${PEER}"/>`, 'best peer'],
  ];
  if (rows.some((r) => bestAmong(r.figures, ORACLE_NAMES) !== null))
    legend.push([
      `<path d="M0 -4 l4 4 l-4 4 l-4 -4 z" fill="${ORACLE}"/>`,
      'best fixed share of capacity (oracle)',
    ]);
  legend.push([
    `<line x1="-8" x2="8" y1="0" y2="0" stroke="${MEETS}" stroke-dasharray="6 3"/>`,
    `issue 13's bar (${BAR.minAcceptedShare * 100} %)`,
  ]);
  out.push(...legendRow(legend, ly));
  out.push(
    `<text x="0" y="${ly + 22}" font-size="10" fill="#555">accepted work after the outage / what the provider could serve; peers: naive, jittered, sre-throttle, aws-adaptive; one mark per seed, seeds left to right in each column; the scale widens above ${ZOOM_FROM * 100} %</text>`,
    '</g>',
    '</svg>',
  );
  return out.join('\n') + '\n';
}
