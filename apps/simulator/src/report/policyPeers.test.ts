import { describe, expect, it } from 'vitest';
import { PEERS } from '../metrics/Bar.js';
import { readRuns } from './policyComparison.js';
import { withPeersFrom } from './policyPeers.js';
import { verdictOf, type PolicyRow } from './policySummary.js';

const figures = (share: number) => ({
  acceptedShareOfServable: share,
  retripsAfterRecovery: 0,
  maxAttemptedOverServable: 1.1,
  budgetViolations: [] as string[],
});
const run = (seed: number, shares: Record<string, number>): PolicyRow => ({
  provider: 'simple',
  scenario: 'S2',
  level: '20 %',
  seed,
  figures: Object.fromEntries(Object.entries(shares).map(([name, share]) => [name, figures(share)])),
});
const ALL_PEERS = { naive: 0.78, jittered: 0.998, 'sre-throttle': 0.987, 'aws-adaptive': 0.999 };

describe("npm run policy's peers from an earlier run (--peers)", () => {
  const earlier = [run(1, { ...ALL_PEERS, recloser: 0.9 }), run(3, { ...ALL_PEERS, recloser: 0.9 })];

  it('judges a recloser-only run on the whole bar: the peers come from the same run (cell and seed) of the file', () => {
    const alone = run(1, { recloser: 0.96 });
    expect(verdictOf(alone).peersJudged).toBe(false);
    const [judged] = withPeersFrom([alone], earlier, 'peers.json');
    expect(judged!.figures.recloser).toEqual(alone.figures.recloser); // recloser's own figures, not the file's
    expect(judged!.figures.naive).toEqual(earlier[0]!.figures.naive);
    // the peers first, as a full run lists them: the tables' columns follow this order
    expect(Object.keys(judged!.figures)).toEqual([...PEERS, 'recloser']);
    const verdict = verdictOf(judged!);
    expect(verdict.peersJudged).toBe(true);
    // 96.0 % is more than 3 points under aws-adaptive's 99.9 %: the peer criterion fails it
    expect(verdict.misses.map((m) => m.criterion)).toEqual(['peers']);
  });

  it("keeps a peer's own figures where it ran here, and takes only the missing ones", () => {
    const some = run(3, { recloser: 0.97, naive: 0.5 });
    const [judged] = withPeersFrom([some], earlier, 'peers.json');
    expect(judged!.figures.naive!.acceptedShareOfServable).toBe(0.5);
    expect(judged!.figures['aws-adaptive']!.acceptedShareOfServable).toBe(0.999);
  });

  it('leaves a run whose peers all ran untouched', () => {
    const full = run(7, { ...ALL_PEERS, recloser: 0.97 });
    expect(withPeersFrom([full], [], 'peers.json')[0]).toBe(full);
  });

  it('names the file and the run it has no peer for (another seed, or a recloser-only file)', () => {
    expect(() => withPeersFrom([run(7, { recloser: 0.96 })], earlier, 'peers.json')).toThrow(
      "--peers: peers.json: no peer's figures for simple | S2 20 % seed 7",
    );
    const recloserOnly = [run(1, { recloser: 0.9 })];
    expect(() => withPeersFrom([run(1, { recloser: 0.96 })], recloserOnly, 'alone.json')).toThrow(
      "no peer's figures for simple | S2 20 % seed 1",
    );
  });

  it('the file is read as --baseline reads one, its errors naming --peers', () => {
    expect(() => readRuns('{', 'p.json', '--peers')).toThrow(/^--peers: p\.json: not JSON/);
    expect(readRuns(JSON.stringify(earlier), 'p.json', '--peers')).toEqual(earlier);
  });
});
