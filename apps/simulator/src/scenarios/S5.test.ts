// S5 at a smaller size: the controller lost mid-ramp for 60 s in a 30-instance, three-region fleet.
import { describe, expect, it } from 'vitest';
import { recloserNoController } from '../strategies/recloserNoController.js';
import { runStrategy } from './run.js';
import { S5 } from './S5.js';
import { fleetParams, type ScenarioParams } from './Scenario.js';

const S5_SHORT: ScenarioParams = {
  ...fleetParams(30, {
    durationMs: 240_000,
    outage: { startMs: 10_000, durationMs: 40_000, recoveredFraction: 1 },
    brokenHosts: 0,
  }),
  controllerLoss: { afterRampMs: 5_000, durationMs: 80_000 },
};

describe('S5 short: the controller lost in the middle of a ramp', () => {
  it('fallback probes stay within each region share, nothing rides an expired allowance, and it recovers after control returns', async () => {
    const f = (await runStrategy(S5_SHORT, recloserNoController, 3)) as unknown as Record<string, unknown> & {
      timeToRecoveredMs: number | null;
      budgetViolations: string[];
    };
    expect(f.controlLostAtMs).not.toBeNull();
    expect(f.controlReturnedAtMs).toBe((f.controlLostAtMs as number) + 80_000);
    expect(typeof f.fallbackMaxOverShare).toBe('number');
    expect(f.fallbackMaxOverShare as number).toBeLessThanOrEqual(1);
    const byRegion = f.fallbackByRegion as Record<string, { share: number; probes: number }>;
    expect(Object.keys(byRegion).sort()).toEqual(['ap-south', 'eu-west', 'us-east']);
    // nobody is isolated forever: every region probed while the controller was gone
    for (const r of Object.values(byRegion)) expect(r.probes).toBeGreaterThan(0);
    expect(f.allowanceCallsAfterValidity).toBe(0);
    expect(f.timeToRecoveredMs).not.toBeNull();
    expect(f.regionFallbackEvents).toBe(3);
    expect(f.budgetViolations).toEqual([]);
  });

  it('is listed with the strategy that loses the controller, and the plain recloser for comparison', () => {
    expect(S5.needs).toBeUndefined();
    expect(S5.strategies?.map((s) => s.name)).toEqual(['recloser', 'recloser-no-controller']);
    expect(recloserNoController.needsIn?.({})).toMatch(/loses the controller/);
  });
});
