// S6's output: the side-by-side table, the JSON the checks read (strategies.<name>.healthyQuarantined,
// poisonQuarantined, doubleRefunds) and a chart of healthy units quarantined and reclaims over time.
import type { S6Figures, S6Result } from './S6.js';
import { S6, S6_FIRST_OUTAGE_MS, S6_FLAPS, S6_OUTAGE_MS, S6_UP_MS } from './S6.js';

const ROWS: [string, (f: S6Figures) => string][] = [
  ['healthy units quarantined', (f) => String(f.healthyQuarantined)],
  ['poison units quarantined', (f) => `${f.poisonQuarantined} of ${f.poisonUnits}`],
  ['double refunds', (f) => String(f.doubleRefunds)],
  ['units done / arrived', (f) => `${f.unitsDone} / ${f.unitsArrived}`],
  ['reclaims', (f) => String(f.reclaims)],
  ['reclaims refunded', (f) => String(f.refundedReclaims)],
  ['attempts refunded', (f) => String(f.refundedAttempts)],
  ['max reclaims of a healthy unit', (f) => String(f.maxHealthyReclaims)],
  [
    'global opens (flaps) / closes',
    (f) => (f.globalOpens === null ? '-' : `${f.globalOpens} / ${f.globalCloses}`),
  ],
];

export function s6Table(result: S6Result): string {
  const names = Object.keys(result.strategies);
  const width = Math.max(...ROWS.map(([r]) => r.length));
  const cells = (f: (x: S6Figures) => string) => names.map((n) => f(result.strategies[n]!).padStart(20));
  return [
    `S6 — ${S6.title} (${result.params.instances} instances, seed ${result.seed})`,
    ['', ...names.map((n) => n.padStart(20))].join('  ').replace(/^/, ''.padEnd(width)),
    ...ROWS.map(([label, f]) => [label.padEnd(width), ...cells(f)].join('  ')),
    '',
    `what must hold for recloser: ${S6.mustHold}`,
    '',
  ].join('\n');
}

export function s6Markdown(result: S6Result): string {
  const names = Object.keys(result.strategies);
  return [
    `**S6** — ${S6.title}: ${result.params.instances} instances, seed ${result.seed}`,
    '',
    `| | ${names.map((n) => `\`${n}\``).join(' | ')} |`,
    `|---|${names.map(() => '---:').join('|')}|`,
    ...ROWS.map(([label, f]) => `| ${label} | ${names.map((n) => f(result.strategies[n]!)).join(' | ')} |`),
    '',
  ].join('\n');
}

export function s6Json(result: S6Result): unknown {
  return {
    scenario: 'S6',
    title: S6.title,
    seed: result.seed,
    params: result.params,
    strategies: result.strategies,
  };
}

const COLORS = ['#d62728', '#ff7f0e', '#1f77b4', '#2ca02c'];

/** Two panels over time: healthy units quarantined, and reclaims so far; outages shaded. */
export function s6Chart(result: S6Result): string {
  const W = 900;
  const H = 220;
  const names = Object.keys(result.strategies);
  const tMax = Math.max(...names.flatMap((n) => result.strategies[n]!.series.map((p) => p.t)), 1);
  const panel = (title: string, top: number, pick: (p: S6Figures['series'][number]) => number): string => {
    const yMax = Math.max(1, ...names.flatMap((n) => result.strategies[n]!.series.map(pick)));
    const x = (t: number) => 60 + (t / tMax) * (W - 80);
    const y = (v: number) => top + H - 30 - (v / yMax) * (H - 60);
    const shades = Array.from({ length: S6_FLAPS }, (_, k) => {
      const a = (S6_FIRST_OUTAGE_MS + k * (S6_OUTAGE_MS + S6_UP_MS)) / 1000;
      return `<rect x="${x(a).toFixed(1)}" y="${top + 30}" width="${(x(a + S6_OUTAGE_MS / 1000) - x(a)).toFixed(1)}" height="${H - 60}" fill="#eee"/>`;
    }).join('');
    const lines = names
      .map((n, i) => {
        const pts = result.strategies[n]!.series.map(
          (p) => `${x(p.t).toFixed(1)},${y(pick(p)).toFixed(1)}`,
        ).join(' ');
        return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5" points="${pts}"/>`;
      })
      .join('');
    const legend = names
      .map(
        (n, i) =>
          `<text x="${70 + i * 200}" y="${top + 22}" fill="${COLORS[i % COLORS.length]}" font-size="12">${n}</text>`,
      )
      .join('');
    return (
      `<text x="60" y="${top + 12}" font-size="13">${title} (max ${yMax}; outages shaded)</text>${shades}` +
      `<line x1="60" y1="${y(0)}" x2="${W - 20}" y2="${y(0)}" stroke="#999"/>${lines}${legend}` +
      `<text x="${W - 20}" y="${top + H - 12}" font-size="11" text-anchor="end">${tMax.toFixed(0)} s</text>`
    );
  };
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${2 * H}" font-family="sans-serif">` +
    `<rect width="100%" height="100%" fill="white"/>` +
    panel('healthy work units quarantined', 0, (p) => p.healthyQuarantined) +
    panel('reclaims so far (lease expiries)', H, (p) => p.reclaims) +
    `</svg>\n`
  );
}
