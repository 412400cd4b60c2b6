// S4 and S8 at their own (already small) size: what must hold for recloser, and that the
// uncoordinated strategies show what the scenarios are about (the cascade, the doubled budget).
import { beforeAll, describe, expect, it } from 'vitest';
import type { StrategyFigures } from '../metrics/Summary.js';
import { runStrategy } from '../scenarios/run.js';
import { S4 } from '../scenarios/S4.js';
import { S8 } from '../scenarios/S8.js';
import { failover } from './failover.js';
import { budgetPerRegion, regionalRecloser } from './regionalRecloser.js';

const opened = (f: StrategyFigures): string[] =>
  Object.entries(f.opensByScope ?? {})
    .filter(([, n]) => n > 0)
    .map(([k]) => k);

describe('S4: a regional network fault', () => {
  let reclosing: StrategyFigures;
  let failing: StrategyFigures;
  beforeAll(async () => {
    reclosing = await runStrategy(S4.params, regionalRecloser, 3);
    failing = await runStrategy(S4.params, failover, 3);
  }, 120_000);

  it('recloser opens only the failed region and moves traffic within the receivers’ headroom', () => {
    expect(opened(reclosing)).toEqual(['region:eu-west']);
    expect(reclosing.maxShiftOverHeadroom).toBeGreaterThan(0);
    expect(reclosing.maxShiftOverHeadroom).toBeLessThanOrEqual(1);
    expect(reclosing.regions!['us-east']!.movedInCalls).toBeGreaterThan(0);
  });

  it('recloser accepts at least what failover does, and the failed region’s breaker closes before the end', () => {
    // the shift carries eu-west's backlog until eu-west serves its demand at home: before, it was
    // reversed once eu-west's ramp reached its top level, the backlog drained at home at 0.2× its
    // demand and the region breaker stayed RAMPING to the end (about 2 % less work than failover)
    expect(reclosing.acceptedWork).toBeGreaterThanOrEqual(failing.acceptedWork);
    const verdicts = reclosing.regionalSeries!.map((p) => p.verdict['eu-west']);
    expect(verdicts).toContain('region_open');
    expect(verdicts.at(-1)).toBe('closed');
  });

  it('uncoordinated failover cascades beyond the failed region', () => {
    expect(opened(failing).length).toBeGreaterThanOrEqual(2);
    expect(failing.maxShiftOverHeadroom).toBeGreaterThan(1);
  });
});

describe('S8: two regions recovering on one pool', () => {
  it('recloser keeps live probe tokens within the one pool budget; a budget per region doubles it', async () => {
    const one = await runStrategy(S8.params, regionalRecloser, 3);
    expect(opened(one)).toEqual(['region:eu-west', 'region:us-east']);
    expect(one.maxProbeTokensInFlight).toBeGreaterThan(0);
    expect(one.maxProbeTokensInFlight).toBeLessThanOrEqual(one.probeBudget!);
    const two = await runStrategy(S8.params, budgetPerRegion, 3);
    expect(two.maxProbeTokensInFlight).toBeGreaterThan(two.probeBudget!);
  }, 120_000);
});
