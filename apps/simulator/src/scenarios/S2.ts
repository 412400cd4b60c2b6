// S2: after the outage the provider serves only 10 % of its normal capacity.
import { fleetParams, type Scenario } from './Scenario.js';

export const S2: Scenario = {
  id: 'S2',
  title: 'after a 60 s outage the provider serves only 10 % of normal capacity',
  mustHold:
    'the ramp settles near 10 %, no re-trip once settled, accepted work >= 90 % of what the provider can serve; naive flaps',
  params: fleetParams(200, {
    durationMs: 600_000,
    outage: { startMs: 10_000, durationMs: 60_000, recoveredFraction: 0.1 },
    brokenHosts: 0,
  }),
};
