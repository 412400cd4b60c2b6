// Every strategy the runner compares, in column order: the strawmen (naive, jittered), what a
// careful team runs without a controller (sre-throttle, aws-adaptive), and recloser. A strategy that needs a capability that is
// not built yet is listed with what it needs and never run.
import { jittered, naive } from './naive.js';
import { awsAdaptive } from './awsAdaptive.js';
import { recloser } from './recloser.js';
import { sreThrottle } from './sreThrottle.js';
import type { Strategy } from './Strategy.js';

const recloserNoController: Strategy = {
  name: 'recloser-no-controller',
  needs: 'fallback (issue not yet built): the controller hands out no fallback shares or probe owners yet',
  build: () => {
    throw new Error('recloser-no-controller needs the SDK fallback mode, which is not built yet');
  },
};

export const STRATEGIES: Strategy[] = [
  naive,
  jittered,
  sreThrottle,
  awsAdaptive,
  recloser,
  recloserNoController,
];
