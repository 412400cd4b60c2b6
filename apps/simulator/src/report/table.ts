// The side-by-side table: one column per strategy, one row per figure.
import type { StrategyFigures } from '../metrics/Summary.js';
import { SHORTFALL_PHASES, type Shortfall } from '../metrics/Shortfall.js';
import { percent } from './format.js';

export interface StrategyColumn {
  name: string;
  figures: StrategyFigures | null;
  /** why the strategy did not run (a missing capability) */
  needs?: string;
}

/** "waiting 0.8, climb 0.7, settled 4.1, cut 2.0": the phases a recovery lost work in (Shortfall.ts) */
export function shortfallText(shortfall: Shortfall | null): string {
  if (!shortfall) return '-';
  const parts = SHORTFALL_PHASES.filter((p) => shortfall[p].seconds > 0).map(
    (p) => `${p} ${shortfall[p].points.toFixed(1)}`,
  );
  return parts.join(', ') || '-';
}

const ROWS: [string, (f: StrategyFigures) => string][] = [
  ['peak attempts/s during recovery', (f) => String(f.peakAttemptsPerSec)],
  ['peak attempts/s after that wave', (f) => (f.hadOutage ? String(f.peakAttemptsAfterWave) : '-')],
  ['accepted work (calls)', (f) => String(f.acceptedWork)],
  ['accepted after the outage / servable', (f) => percent(f.acceptedShareOfServable)],
  [
    'p95 latency of accepted calls after the outage',
    (f) => (f.acceptedLatencyP95Ms === null ? '-' : `${f.acceptedLatencyP95Ms} ms`),
  ],
  [
    'max attempts / servable after the first success',
    (f) => (f.maxAttemptedOverServable === null ? '-' : f.maxAttemptedOverServable.toFixed(2)),
  ],
  ['points of servable lost, by phase', (f) => shortfallText(f.shortfall)],
  ['failed attempts', (f) => String(f.failedAttempts)],
  ['retry volume', (f) => String(f.retryVolume)],
  ['probes (half-open calls)', (f) => String(f.probes)],
  ['probe latency p95', (f) => (f.probeLatencyP95Ms === null ? '-' : `${f.probeLatencyP95Ms} ms`)],
  [
    'time until recovered',
    (f) => (f.timeToRecoveredMs === null ? 'never' : `${(f.timeToRecoveredMs / 1000).toFixed(0)} s`),
  ],
  ['global opens (quorum or collapse)', (f) => String(f.globalOpens)],
  ['reopens after a failed probe', (f) => String(f.probeFailureReopens)],
  ['false global opens', (f) => String(f.falseGlobalOpens)],
  ['re-trips after recovery', (f) => String(f.retripsAfterRecovery)],
  ['local opens after the outage', (f) => String(f.localOpensAfterOutage)],
  [
    'max queue depth per region',
    (f) =>
      Object.entries(f.maxQueueDepthByRegion)
        .map(([r, d]) => `${r} ${d}`)
        .join(', ') || '0',
  ],
  ['work shed / failed every retry', (f) => `${f.shedWork} / ${f.failedWork}`],
  ['wasted calls (served after the caller gave up)', (f) => String(f.wastedCalls)],
  ['budget overruns', (f) => String(f.budgetViolations.length)],
  [
    'isolated instances reported',
    (f) => (f.isolatedInstances.length === 0 ? '-' : f.isolatedInstances.join(', ')),
  ],
];

// regional strategies only (S4, S8): shown when a column has them
const REGION_ROWS: [string, (f: StrategyFigures) => string][] = [
  [
    'opens by scope',
    (f) =>
      Object.entries(f.opensByScope ?? {})
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none',
  ],
  ['max moved-in / receiver headroom', (f) => (f.maxShiftOverHeadroom ?? 0).toFixed(2)],
  [
    'calls moved to other regions (succeeded)',
    (f) => {
      const r = Object.values(f.regions ?? {});
      return `${r.reduce((s, x) => s + x.movedInCalls, 0)} (${r.reduce((s, x) => s + x.movedInSucceeded, 0)})`;
    },
  ],
  [
    'max live probe tokens / pool budget',
    (f) => (f.maxProbeTokensInFlight === undefined ? '-' : `${f.maxProbeTokensInFlight} / ${f.probeBudget}`),
  ],
];

function rowsFor(columns: StrategyColumn[]): [string, (f: StrategyFigures) => string][] {
  return columns.some((c) => c.figures?.opensByScope) ? [...ROWS, ...REGION_ROWS] : ROWS;
}

function cell(c: StrategyColumn, pick: (f: StrategyFigures) => string): string {
  if (c.figures) return pick(c.figures);
  return 'n/a';
}

/** A plain-text table for the terminal. */
export function textTable(title: string, columns: StrategyColumn[]): string {
  const header = ['', ...columns.map((c) => c.name)];
  const body = rowsFor(columns).map(([label, pick]) => [label, ...columns.map((c) => cell(c, pick))]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  const notes = columns.filter((c) => c.needs).map((c) => `  ${c.name}: needs ${c.needs}`);
  return [title, line(header), ...body.map(line), ...notes].join('\n');
}

/** The same table in Markdown, for docs/scenarios/README.md. */
export function markdownTable(columns: StrategyColumn[]): string {
  const header = `| | ${columns.map((c) => `\`${c.name}\``).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---:').join('|')}|`;
  const body = rowsFor(columns).map(
    ([label, pick]) => `| ${label} | ${columns.map((c) => cell(c, pick)).join(' | ')} |`,
  );
  const notes = columns.filter((c) => c.needs).map((c) => `\n\n\`${c.name}\`: needs ${c.needs}.`);
  return [header, rule, ...body].join('\n') + notes.join('');
}
