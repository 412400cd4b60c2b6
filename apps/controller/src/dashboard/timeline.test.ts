import { DEFAULT_POOL } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { admittedIn, timelineOf } from './timeline.js';

describe('timelineOf', () => {
  const pool = DEFAULT_POOL('p', 'dep');
  it('turns the log into points, oldest first, with the admitted rate of each state, then now', () => {
    const points = timelineOf(
      pool,
      [
        {
          at: '2026-01-01T00:00:10Z',
          to: 'probing',
          step: null,
          figures: { probe: { verdict: 'pass', latencyMs: 40 } },
        },
        {
          at: '2026-01-01T00:00:00Z',
          to: 'open',
          step: null,
          figures: { quorum: { open: 3, live: 4, threshold: 2 } },
        },
        {
          at: '2026-01-01T00:00:20Z',
          to: 'ramping',
          step: 0,
          figures: { gates: { successRate: 0.99, latencyP95Ms: 120 } },
        },
      ],
      {
        at: Date.parse('2026-01-01T00:00:30Z'),
        state: 'ramping',
        step: 0,
        level: null,
        open: 0,
        live: 4,
        threshold: 2,
      },
    );
    expect(points.map((p) => p.state)).toEqual(['open', 'probing', 'ramping', 'ramping']);
    expect(points[0]).toMatchObject({ open: 3, live: 4, threshold: 2, successRate: null });
    expect(points[1]).toMatchObject({ probe: 'pass', latencyP95Ms: 40 });
    expect(points[2]).toMatchObject({ successRate: 0.99, latencyP95Ms: 120 });
    expect(points[3]).toMatchObject({ open: 0, live: 4 });
    expect(Object.values(points[0]!.admitted).every((r) => r === 0)).toBe(true);
    expect(points[2]!.admitted).toEqual(admittedIn(pool, 'ramping', 0));
    const full = admittedIn(pool, 'closed', null);
    for (const [cls, rate] of Object.entries(points[2]!.admitted)) expect(rate).toBeLessThan(full[cls]!);
  });
});
