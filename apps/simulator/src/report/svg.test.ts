import { describe, expect, it } from 'vitest';
import type { SeriesPoint } from '../metrics/Summary.js';
import { chartSvg } from './svg.js';

const point = (t: number, attempts: number): SeriesPoint => ({
  t,
  attempts,
  retries: 0,
  probes: 0,
  accepted: attempts,
  failed: 0,
  admittedByClass: { standard: attempts, probe: 0 },
  openInstances: 0,
  globalState: null,
  globalStep: null,
  globalLevel: null,
  servable: 0,
  queueDepth: 0,
});

describe('chartSvg', () => {
  it('draws one polyline per strategy and value in each of the three panels, with a legend', () => {
    const series = [point(0, 1), point(1, 1000), point(2, 5)];
    const svg = chartSvg(
      'S1 <test>',
      [
        { name: 'naive', series },
        { name: 'recloser', series },
      ],
      [0, 1],
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    // attempts (2 lines) + admitted per class (2 lines × 2 classes) + accepted (2 lines)
    expect(svg.match(/<polyline /g)).toHaveLength(8);
    expect(svg).toContain('S1 &lt;test&gt;');
    expect(svg).toContain('>recloser</text>');
    expect(svg).toContain('>outage</text>');
  });
});
