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

/** The strategies a `--strategies` list names, of `known`, in its order; an unknown name is an error naming the flag and listing the known ones. */
export function strategiesNamed(names: string[], known: Strategy[]): Strategy[] {
  return names.map((n) => {
    const s = known.find((x) => x.name === n);
    if (!s)
      throw new Error(`--strategies: unknown strategy ${n} (known: ${known.map((x) => x.name).join(', ')})`);
    return s;
  });
}
