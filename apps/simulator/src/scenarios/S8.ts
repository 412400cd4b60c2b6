// S8: two regions draw on one global provider quota and recover at the same time. Five regions of
// 30 instances share one provider pool; eu-west loses its network path at 20 s for 90 s, us-east at
// 30 s for 90 s. Each region's breaker opens region-locally (three regions stay healthy) and both
// recover at once: `recloser` draws both recoveries from the one pool's probe budget;
// `budget-per-region` is the same fleet with a pool (and so a budget) per region.
import { budgetPerRegion, regionalRecloser } from '../regions/regionalRecloser.js';
import { DEFAULT_PROVIDER } from '../provider/Provider.js';
import { DEFAULT_WORKLOAD } from '../workload/Worker.js';
import { providerFor, type Scenario } from './Scenario.js';

const INSTANCES = 150;

export const S8: Scenario = {
  id: 'S8',
  title: 'two regions draw on one global provider quota',
  mustHold: 'total recovery attempts across both regions stay within one pool budget, not two',
  params: {
    instances: INSTANCES,
    regions: ['eu-west', 'us-east', 'ap-south', 'sa-east', 'me-central'],
    durationMs: 240_000,
    outage: null,
    brokenHosts: 0,
    regionFaults: [
      { region: 'eu-west', startMs: 20_000, durationMs: 90_000 },
      { region: 'us-east', startMs: 30_000, durationMs: 90_000 },
    ],
    provider: providerFor(INSTANCES, DEFAULT_WORKLOAD.demandPerSec, DEFAULT_PROVIDER),
    workload: DEFAULT_WORKLOAD,
  },
  strategies: [regionalRecloser, budgetPerRegion],
};
