// S4 and S8 at their own (already small) size: what must hold for recloser, and that the
// uncoordinated strategies show what the scenarios are about (the cascade, the doubled budget).
import { describe, expect, it } from 'vitest';
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
  it('recloser opens only the failed region and moves traffic within the receivers’ headroom', async () => {
    const f = await runStrategy(S4.params, regionalRecloser, 3);
    expect(opened(f)).toEqual(['region:eu-west']);
    expect(f.maxShiftOverHeadroom).toBeGreaterThan(0);
    expect(f.maxShiftOverHeadroom).toBeLessThanOrEqual(1);
    expect(f.regions!['us-east']!.movedInCalls).toBeGreaterThan(0);
  }, 120_000);

  it('uncoordinated failover cascades beyond the failed region', async () => {
    const f = await runStrategy(S4.params, failover, 3);
    expect(opened(f).length).toBeGreaterThanOrEqual(2);
    expect(f.maxShiftOverHeadroom).toBeGreaterThan(1);
  }, 120_000);
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
