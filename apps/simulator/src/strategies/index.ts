// Every strategy the runner compares, in column order: the strawmen (naive, jittered), what a
// careful team runs without a controller (sre-throttle, aws-adaptive), and recloser. A strategy that needs a capability that is
// not built yet is listed with what it needs and never run.
import { jittered, naive } from './naive.js';
import { awsAdaptive } from './awsAdaptive.js';
import { recloser } from './recloser.js';
import { recloserNoController } from './recloserNoController.js';
import { sreThrottle } from './sreThrottle.js';
import type { Strategy } from './Strategy.js';

export const STRATEGIES: Strategy[] = [
  naive,
  jittered,
  sreThrottle,
  awsAdaptive,
  recloser,
  recloserNoController,
];
