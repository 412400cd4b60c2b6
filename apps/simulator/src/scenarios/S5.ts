// S5: the controller dies in the middle of a ramp and returns 2 minutes later. 100 instances in three
// regions, the S1 outage (60 s from 10 s); 10 s after the breaker starts RAMPING the controller is
// gone for 120 s (recloser-no-controller), against the same run with the controller up (recloser).
import { recloser } from '../strategies/recloser.js';
import { recloserNoController } from '../strategies/recloserNoController.js';
import { fleetParams, type Scenario } from './Scenario.js';

export const S5: Scenario = {
  id: 'S5',
  title: 'the controller dies in the middle of a ramp and returns 2 minutes later',
  mustHold:
    'attempts stay within the preallocated regional shares, no instance ramps beyond its last granted step, recovery completes after the controller returns',
  params: {
    ...fleetParams(100, {
      durationMs: 420_000,
      outage: { startMs: 10_000, durationMs: 60_000, recoveredFraction: 1 },
      brokenHosts: 0,
    }),
    controllerLoss: { afterRampMs: 10_000, durationMs: 120_000 },
  },
  strategies: [recloser, recloserNoController],
};
