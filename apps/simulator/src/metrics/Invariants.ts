// What must hold for recloser in every run, checked from the per-second series: while the group
// is OPEN or PROBING the fleet sends no more than the pool's probe budget, and while RAMPING no
// more than the allowance of the ramp's level (rate for one second plus the burst the level hands
// out: one call each for at most core `admissionLimit` instances).
// An instance learns a new plan at its next heartbeat, up to one interval later: a second is judged
// only when the state was the same for the two seconds before it, and a ramping second against the
// highest level of those three seconds.
import { admissionLimit, stepBudget, type PoolConfig } from '@recloser/core';
import type { SeriesPoint } from './Summary.js';

export interface BudgetOverrun {
  t: number;
  state: string;
  attempts: number;
  limit: number;
}

export function probeAndRampOverruns(series: readonly SeriesPoint[], pool: PoolConfig): BudgetOverrun[] {
  const out: BudgetOverrun[] = [];
  for (let i = 2; i < series.length; i++) {
    const [a, b, p] = [series[i - 2]!, series[i - 1]!, series[i]!];
    const state = p.globalState;
    if (state === null || a.globalState !== state || b.globalState !== state) continue;
    if (state === 'open' || state === 'probing') {
      const limit = pool.probe.ratePerSec;
      if (p.attempts > limit) out.push({ t: p.t, state, attempts: p.attempts, limit });
    } else if (state === 'ramping') {
      let limit = 0;
      for (const q of [a, b, p]) {
        if (q.globalStep === null || q.globalLevel === null) continue;
        let here = 0;
        for (const cap of Object.values(stepBudget(pool, { step: q.globalStep, level: q.globalLevel })))
          here += cap.ratePerSec + admissionLimit(cap);
        limit = Math.max(limit, Math.ceil(here));
      }
      if (p.attempts > limit)
        out.push({ t: p.t, state: `ramping step ${p.globalStep}`, attempts: p.attempts, limit });
    }
  }
  return out;
}
