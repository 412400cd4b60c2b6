// Scenarios whose capabilities are not built yet. They are listed and runnable: the runner prints
// what each needs and exits 0. Nothing here is simulated, so nothing can be faked.
import { S1 } from './S1.js';
import type { Scenario } from './Scenario.js';

export const S5: Scenario = {
  id: 'S5',
  title: 'the controller dies in the middle of a ramp and returns 2 minutes later',
  mustHold:
    'attempts stay within the preallocated regional shares, no instance ramps beyond its last granted step',
  needs: 'fallback (the controller hands out no regional fallback shares or probe owners yet)',
  params: S1.params,
};
