// Scenarios whose capabilities are not built yet. They are listed and runnable: the runner prints
// what each needs and exits 0. Nothing here is simulated, so nothing can be faked.
import { S1 } from './S1.js';
import type { Scenario } from './Scenario.js';

export const S4: Scenario = {
  id: 'S4',
  title: 'region A loses its network path; B and C are healthy and share the provider quota',
  mustHold:
    'A opens region-locally, the pool stays closed, traffic moved to B and C stays within their headroom, B and C never open',
  needs: 'regional failure domains (region-scoped breakers and traffic shifting are not built yet)',
  params: S1.params,
};

export const S6: Scenario = {
  id: 'S6',
  title: 'the breaker flaps 10 times; the queue quarantines work after 5 reclaims',
  mustHold:
    'no healthy work unit is quarantined; a genuinely poison unit still is; no refund is issued twice',
  needs: 'reconciliation (the reclaim ledger and refunds are not built yet)',
  params: S1.params,
};

export const S8: Scenario = {
  id: 'S8',
  title: 'two regions draw on one global provider quota',
  mustHold: 'total recovery attempts across both regions stay within one pool budget, not two',
  needs: 'regional failure domains (per-region breakers on one shared pool are not built yet)',
  params: S1.params,
};
