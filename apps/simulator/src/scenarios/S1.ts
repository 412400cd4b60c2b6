// S1: 500 instances trip within 2 s of a 60 s provider outage; every naive timer expires together.
import { fleetParams, type Scenario } from './Scenario.js';

export const S1: Scenario = {
  id: 'S1',
  title: '500 instances trip within 2 s of a 60 s provider outage',
  mustHold:
    "peak recovery attempts/s <= the pool's probe budget while probing, <= the ramp step's allowance afterwards; naive shows thousands",
  params: fleetParams(500, {
    durationMs: 300_000,
    // the outage starts at 10 s: every breaker has warmed up and every instance trips within 2 s
    outage: { startMs: 10_000, durationMs: 60_000, recoveredFraction: 1 },
    brokenHosts: 0,
  }),
};
