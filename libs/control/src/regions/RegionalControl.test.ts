// RegionalControl on the memory ports: one breaker per region (groups g.<region>) on one pool,
// heartbeats through the real ControlPlane, verdicts and shift plans from core.
import { emptyEvidence, FakeClock, seededRng, type Evidence, type ReportedState } from '@recloser/core';
import { describe, expect, it } from 'vitest';
import { createMemoryControlPlane } from '../memory/MemoryControlPlane.js';
import { RegionalControl } from './RegionalControl.js';

const TTL = 5000;
const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const idOf = (region: string) => `g.${region}:dep`;

function evidence(failed: boolean): Evidence {
  const e = emptyEvidence();
  e.attempts = 10;
  e.successes = failed ? 0 : 10;
  e.byClass.network = failed ? 10 : 0;
  return e;
}

function setup() {
  const clock = new FakeClock(0);
  const control = createMemoryControlPlane({
    clock,
    rng: seededRng(1),
    heartbeatIntervalMs: 1000,
    heartbeatTtlMs: TTL,
    isolationAfterMs: 2 * TTL,
  });
  const regional = new RegionalControl(control.presence, control.breakers, clock, {
    sources: REGIONS.map((region) => ({ region, breakerId: idOf(region) })),
    capacityPerSec: { 'eu-west': 12, 'us-east': 12, 'ap-south': 12 },
    poolQuotaPerSec: 36,
    heartbeatTtlMs: TTL,
    heartbeatIntervalMs: 1000,
    maxReceiverErrorRate: 0.05,
  });
  const beatAll = async (stateOf: (region: string) => ReportedState) => {
    for (const region of REGIONS)
      for (let i = 0; i < 10; i++) {
        const state = stateOf(region);
        await control.plane.heartbeat({
          instanceId: `${region}-${i}`,
          group: `g.${region}`,
          region,
          breakers: [
            { dependency: 'dep', state, evidence: evidence(state === 'open'), demand: { standard: 1 } },
          ],
        });
      }
  };
  return { clock, control, regional, beatAll };
}

describe('RegionalControl', () => {
  it('judges a region failing alone region_open and plans a small first shift within the receivers’ headroom', async () => {
    const { clock, regional, beatAll } = setup();
    await beatAll(() => 'closed');
    clock.set(TTL + 1);
    await beatAll((r) => (r === 'eu-west' ? 'open' : 'closed'));
    const transitions = await regional.evaluate();
    expect(transitions).toEqual([
      { at: TTL + 1, scope: 'region:eu-west', from: 'closed', to: 'region_open' },
    ]);
    const plan = regional.planFor('eu-west')!;
    expect(plan.mode).toBe('shifting');
    // headroom 12 − 10 = 2 req/s per receiver; the first step moves 10 % of it
    expect(plan.receivers.map((r) => [r.region, r.ratePerSec])).toEqual([
      ['us-east', 0.2],
      ['ap-south', 0.2],
    ]);
    const sig = regional.snapshot()!.decision.regions.find((r) => r.region === 'eu-west')!.signature;
    expect(sig.region).toEqual({ errorRate: 1, saturation: 10 / 12 });
  });

  it('calls errors in every region the pool’s (a global open), never a regional one', async () => {
    const { clock, regional, beatAll } = setup();
    await beatAll(() => 'closed');
    clock.set(TTL + 1);
    await beatAll(() => 'open');
    expect(await regional.evaluate()).toEqual([{ at: TTL + 1, scope: 'global', from: 'closed', to: 'open' }]);
    expect(REGIONS.map((r) => regional.verdictOf(r))).toEqual(['open', 'open', 'open']);
    expect(regional.planFor('eu-west')).toBeNull();
  });
});
