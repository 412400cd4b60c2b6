// S4: region A (eu-west) loses its network path to the provider for 90 s; B and C are healthy.
// Each region's endpoint serves 1.2× its own region's demand (pools per region), so B and C have
// 20 % headroom each: enough for a fifth of A's traffic, not for all of it. `failover` (every
// instance moves to the next region when its breaker opens) shows the cascade; `recloser` opens A
// region-locally and moves only what B's and C's headroom takes, in steps.
import { failover } from '../regions/failover.js';
import { regionalRecloser } from '../regions/regionalRecloser.js';
import { DEFAULT_PROVIDER } from '../provider/Provider.js';
import { DEFAULT_WORKLOAD } from '../workload/Worker.js';
import { providerFor, type Scenario } from './Scenario.js';

const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const INSTANCES = 150;

export const S4: Scenario = {
  id: 'S4',
  title: 'region A loses its network path; B and C are healthy and share the provider quota',
  mustHold:
    'A opens region-locally, the pool stays closed, traffic moved to B and C stays within their headroom, B and C never open',
  params: {
    instances: INSTANCES,
    regions: REGIONS,
    // long enough for eu-west to drain its backlog and the shift to be reversed (~330 s)
    durationMs: 360_000,
    outage: null,
    brokenHosts: 0,
    regionFaults: [{ region: 'eu-west', startMs: 20_000, durationMs: 90_000 }],
    // one pool per region, each sized to its region's demand with 20 % headroom
    provider: providerFor(INSTANCES / REGIONS.length, DEFAULT_WORKLOAD.demandPerSec, {
      ...DEFAULT_PROVIDER,
      pools: 'regional',
    }),
    workload: DEFAULT_WORKLOAD,
  },
  strategies: [failover, regionalRecloser],
};
