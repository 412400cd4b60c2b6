import { describe, expect, it } from 'vitest';
import { ORACLE_NAMES } from '../strategies/oracle.js';
import { bestAmong, judgeBar, PEERS } from './Bar.js';

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

describe('bestAmong (the best peer, the best oracle share of a run)', () => {
  const run = {
    recloser: { acceptedShareOfServable: 0.999 },
    naive: { acceptedShareOfServable: 0.73 },
    jittered: { acceptedShareOfServable: 0.998 },
    'sre-throttle': { acceptedShareOfServable: null },
    'oracle-96': { acceptedShareOfServable: 0.97 },
    'oracle-99': { acceptedShareOfServable: 0.98 },
  };

  it('picks the largest share among the names given, and only among them', () => {
    expect(bestAmong(run, PEERS)).toEqual({ name: 'jittered', share: 0.998 });
    expect(bestAmong(run, ORACLE_NAMES)).toEqual({ name: 'oracle-99', share: 0.98 });
  });

  it('gives ties to the first name, and null when none of them ran', () => {
    const tied = {
      'oracle-90': { acceptedShareOfServable: 0.9 },
      'oracle-94': { acceptedShareOfServable: 0.9 },
    };
    expect(bestAmong(tied, ORACLE_NAMES)).toEqual({ name: 'oracle-90', share: 0.9 });
    expect(bestAmong({ recloser: { acceptedShareOfServable: 0.9 } }, PEERS)).toBeNull();
    expect(bestAmong({ 'sre-throttle': { acceptedShareOfServable: null } }, PEERS)).toBeNull();
  });
});
