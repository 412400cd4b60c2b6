import { describe, expect, it } from 'vitest';
import { judgeBar } from './Bar.js';

const good = {
  acceptedShareOfServable: 0.96,
  retripsAfterRecovery: 0,
  maxAttemptedOverServable: 1.1,
  budgetViolations: [] as string[],
};
const texts = (v: ReturnType<typeof judgeBar>): string[] => v.misses.map((m) => m.text);
const peers = (naive: number, jittered: number) => ({
  naive: { acceptedShareOfServable: naive },
  jittered: { acceptedShareOfServable: jittered },
});

describe("issue 13's bar for one run", () => {
  it('holds when every criterion does, and judges the peers only when some ran', () => {
    expect(judgeBar('collapse', good, peers(0.3, 0.2))).toEqual({
      meets: true,
      misses: [],
      peersJudged: true,
    });
    expect(judgeBar('simple', good, {})).toEqual({ meets: true, misses: [], peersJudged: false });
  });

  it('names each figure that falls short, with its limit', () => {
    const v = judgeBar(
      'collapse',
      {
        acceptedShareOfServable: 0.927,
        retripsAfterRecovery: 2,
        maxAttemptedOverServable: 1.24,
        budgetViolations: ['t=80'],
      },
      peers(0.3, 0.2),
    );
    expect(v.meets).toBe(false);
    expect(v.misses.map((m) => m.criterion)).toEqual(['accepted', 're-trips', 'attempts', 'overruns']);
    expect(texts(v)).toEqual([
      'accepted 92.7 % < 95.0 %',
      '2 re-trips',
      'attempts 1.24× servable > 1.2×',
      '1 budget overrun(s)',
    ]);
  });

  it('is exact at its limits: 95 % and 1.2× hold, a hair under or over does not', () => {
    const at = { ...good, acceptedShareOfServable: 0.95, maxAttemptedOverServable: 1.2 };
    expect(judgeBar('collapse', at, {}).meets).toBe(true);
    expect(judgeBar('collapse', { ...at, acceptedShareOfServable: 0.9499 }, {}).meets).toBe(false);
    expect(judgeBar('collapse', { ...at, maxAttemptedOverServable: 1.201 }, {}).meets).toBe(false);
  });

  it('collapsing provider: above every peer; simple provider: within 3 points of the best', () => {
    expect(texts(judgeBar('collapse', good, peers(0.96, 0.5)))).toEqual(['not above naive (96.0 %)']);
    expect(judgeBar('simple', good, peers(0.5, 0.99)).meets).toBe(true); // 3 points under: within
    expect(texts(judgeBar('simple', good, peers(0.5, 0.991)))).toEqual([
      'more than 3 points under jittered (99.1 %)',
    ]);
    // an oracle yardstick is not a peer
    expect(judgeBar('collapse', good, { 'oracle-99': { acceptedShareOfServable: 0.99 } }).peersJudged).toBe(
      false,
    );
  });

  it('a run without a figure (no outage measured) does not meet it', () => {
    expect(texts(judgeBar('simple', { ...good, acceptedShareOfServable: null }, {}))).toEqual([
      'accepted 0.0 % < 95.0 %',
    ]);
  });
});
