// A hand-written SVG chart (no dependency): attempts/s, admitted rate per traffic class and
// accepted work over time, one line per strategy.
import type { SeriesPoint } from '../metrics/Summary.js';

export interface ChartLine {
  name: string;
  series: SeriesPoint[];
}

interface Panel {
  title: string;
  log: boolean;
  /** one or more values per point; each gets its own dash pattern */
  pick: { label: string; value: (p: SeriesPoint) => number }[];
}

const COLOURS = [
  '#d62728',
  '#ff7f0e',
  '#1f77b4',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
  '#aec7e8',
  '#ffbb78',
];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];
const W = 960;
const MIN_PANEL_H = 220;
const LEGEND_ROW = 14;
const M = { left: 70, right: 190, top: 34, bottom: 34 };

/** Text escaped for SVG markup. */
export const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function classesOf(lines: ChartLine[]): string[] {
  const set = new Set<string>();
  for (const l of lines) for (const p of l.series) for (const k of Object.keys(p.admittedByClass)) set.add(k);
  return [...set].sort();
}

function panelSvg(
  panel: Panel,
  lines: ChartLine[],
  y0: number,
  panelH: number,
  outageS: [number, number] | null,
): string {
  const plotW = W - M.left - M.right;
  const plotH = panelH - M.top - M.bottom;
  const tMax = Math.max(1, ...lines.map((l) => l.series.length));
  let vMax = 1;
  for (const l of lines)
    for (const p of l.series) for (const k of panel.pick) vMax = Math.max(vMax, k.value(p));
  const yOf = panel.log
    ? (v: number): number => plotH - (Math.log10(1 + v) / Math.log10(1 + vMax)) * plotH
    : (v: number): number => plotH - (v / vMax) * plotH;
  const xOf = (t: number): number => (t / tMax) * plotW;
  const out: string[] = [`<g transform="translate(${M.left},${y0 + M.top})">`];
  out.push(`<text x="0" y="-12" font-size="14" font-weight="bold">${esc(panel.title)}</text>`);
  if (outageS) {
    out.push(
      `<rect x="${xOf(outageS[0]).toFixed(1)}" y="0" width="${(xOf(outageS[1]) - xOf(outageS[0])).toFixed(1)}" height="${plotH}" fill="#eee"/>`,
      `<text x="${(xOf(outageS[0]) + 4).toFixed(1)}" y="12" font-size="10" fill="#777">outage</text>`,
    );
  }
  out.push(`<rect x="0" y="0" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  const ticks = panel.log
    ? [0, 1, 10, 100, 1000, 10000, 100000].filter((v) => v <= vMax)
    : [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * vMax));
  for (const v of ticks) {
    const y = yOf(v).toFixed(1);
    out.push(`<line x1="-4" x2="${plotW}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="-8" y="${y}" font-size="10" text-anchor="end" dominant-baseline="middle">${v}</text>`);
  }
  const step = tMax > 600 ? 120 : tMax > 200 ? 60 : 30;
  for (let t = 0; t <= tMax; t += step) {
    out.push(
      `<text x="${xOf(t).toFixed(1)}" y="${plotH + 14}" font-size="10" text-anchor="middle">${t}s</text>`,
    );
  }
  let legendY = 0;
  const legend = (colour: string, dash: string, label: string): void => {
    out.push(
      `<line x1="${plotW + 12}" x2="${plotW + 32}" y1="${legendY + 6}" y2="${legendY + 6}" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      `<text x="${plotW + 36}" y="${legendY + 10}" font-size="11">${esc(label)}</text>`,
    );
    legendY += LEGEND_ROW;
  };
  lines.forEach((line, li) => {
    const colour = COLOURS[li % COLOURS.length]!;
    panel.pick.forEach((k, ki) => {
      const pts = line.series.map((p) => `${xOf(p.t).toFixed(1)},${yOf(k.value(p)).toFixed(1)}`).join(' ');
      const dash = DASHES[ki % DASHES.length]!;
      out.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="1.3"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${pts}"/>`,
      );
    });
    legend(colour, '', line.name);
  });
  // several values per line: one dash pattern per value
  if (panel.pick.length > 1)
    panel.pick.forEach((k, ki) => legend('#555', DASHES[ki % DASHES.length]!, k.label));
  out.push('</g>');
  return out.join('\n');
}

export function chartSvg(title: string, lines: ChartLine[], outageS: [number, number] | null): string {
  const classes = classesOf(lines);
  const panels: Panel[] = [
    {
      title: 'attempts/s against the provider (log scale; retries and probes included)',
      log: true,
      pick: [{ label: 'attempts', value: (p) => p.attempts }],
    },
    {
      title: 'admitted calls/s per traffic class (log scale)',
      log: true,
      pick: classes.map((c) => ({ label: c, value: (p: SeriesPoint) => p.admittedByClass[c] ?? 0 })),
    },
    {
      title: 'accepted work/s (successful calls)',
      log: false,
      pick: [{ label: 'accepted', value: (p) => p.accepted }],
    },
  ];
  const legendRows = lines.length + classes.length;
  const panelH = Math.max(MIN_PANEL_H, M.top + M.bottom + legendRows * LEGEND_ROW);
  const height = panels.length * panelH + 40;
  const body = panels.map((p, i) => panelSvg(p, lines, 30 + i * panelH, panelH, outageS)).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${M.left}" y="22" font-size="16" font-weight="bold">${esc(title)}</text>`,
    body,
    '</svg>',
    '',
  ].join('\n');
}

/** The size and margins of a chart of issue 13's matrix (report/policyChart.ts, shortfallChart.ts). */
export const MATRIX_CHART = { W: 1000, H: 420, M: { left: 56, right: 16, top: 48, bottom: 96 } } as const;

/** A matrix chart's opening: the SVG, its title, and a group at the plot's origin with the plot's frame. */
export function matrixChartOpen(title: string, plotW: number, plotH: number): string[] {
  const { W, H, M } = MATRIX_CHART;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<g transform="translate(${M.left},${M.top})">`,
    `<rect x="0" y="0" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  ];
}

/** A matrix cell's label under the plot: "S2 20 %" over its provider. */
export function matrixCellLabel(
  x0: number,
  colW: number,
  plotH: number,
  cell: { provider: string; scenario: string; level: string },
): string[] {
  const x = (x0 + colW / 2).toFixed(1);
  return [
    `<text x="${x}" y="${plotH + 16}" font-size="11" text-anchor="middle">${esc(`${cell.scenario} ${cell.level}`)}</text>`,
    `<text x="${x}" y="${plotH + 30}" font-size="10" text-anchor="middle" fill="#555">${esc(cell.provider)}</text>`,
  ];
}

/** A legend in one row at height y: each mark (drawn around 0,0) with its label after it. */
export function legendRow(entries: [mark: string, label: string][], y: number): string[] {
  let x = 0;
  return entries.map(([mark, label]) => {
    const g = `<g transform="translate(${x},${y})">${mark}<text x="10" y="0" font-size="11" dominant-baseline="middle">${esc(label)}</text></g>`;
    x += 40 + label.length * 5.6;
    return g;
  });
}
