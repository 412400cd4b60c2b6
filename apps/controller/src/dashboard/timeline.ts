import { currentLevel, type GateFigures, type PoolConfig, stepBudget } from '@recloser/core';

/** One point of a breaker's timeline chart: the figures a transition recorded, or the live ones now. */
export interface TimelinePoint {
  /** ms, controller clock */
  at: number;
  state: string;
  step: number | null;
  open: number | null;
  live: number | null;
  threshold: number | null;
  successRate: number | null;
  latencyP95Ms: number | null;
  /** the probe verdict a transition was judged on */
  probe: 'pass' | 'fail' | 'neutral' | null;
  /** requests/s admitted per class: the step's budget while RAMPING, the capacity when CLOSED, 0 otherwise */
  admitted: Record<string, number>;
}

export interface TimelineTransition {
  at: string;
  to: string;
  step: number | null;
  figures: Record<string, unknown>;
}

/**
 * Admitted rate per class in a state: core stepBudget at the ramp's position (its move and level,
 * core currentLevel when none was recorded) while RAMPING.
 */
export function admittedIn(
  pool: PoolConfig,
  state: string,
  step: number | null,
  level: number | null = null,
): Record<string, number> {
  const out: Record<string, number> = {};
  const at = currentLevel({ state: state as 'ramping', level }, pool);
  if (state === 'ramping' && at !== null) {
    for (const [cls, b] of Object.entries(stepBudget(pool, { step: step ?? 0, level: at })))
      out[cls] = b.ratePerSec;
  } else {
    for (const [cls, c] of Object.entries(pool.capacity)) out[cls] = state === 'closed' ? c.ratePerSec : 0;
  }
  return out;
}

/**
 * The timeline: the transition log's figures and the sampler's points (timeline-sampler.job.ts),
 * oldest first, ending with the live figures now.
 */
export function timelineOf(
  pool: PoolConfig,
  transitions: readonly TimelineTransition[],
  now: {
    at: number;
    state: string;
    step: number | null;
    /** the ramp's level (core currentLevel) while RAMPING */
    level: number | null;
    open: number;
    live: number;
    threshold: number;
  },
  samples: readonly TimelinePoint[] = [],
): TimelinePoint[] {
  const points = [...transitions]
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
    .map((t): TimelinePoint => {
      const q = t.figures.quorum as { open: number; live: number; threshold: number } | undefined;
      const g = t.figures.gates as GateFigures | undefined;
      const p = t.figures.probe as { verdict: 'pass' | 'fail' | 'neutral'; latencyMs?: number } | undefined;
      return {
        at: Date.parse(t.at),
        state: t.to,
        step: t.step,
        open: q?.open ?? null,
        live: q?.live ?? null,
        threshold: q?.threshold ?? null,
        successRate: g ? g.successRate : null,
        latencyP95Ms: g?.latencyP95Ms ?? p?.latencyMs ?? null,
        probe: p?.verdict ?? null,
        admitted: admittedIn(
          pool,
          t.to,
          t.step,
          typeof t.figures.level === 'number' ? t.figures.level : null,
        ),
      };
    });
  points.push(...samples.filter((p) => p.at < now.at));
  points.sort((a, b) => a.at - b.at);
  points.push({
    at: now.at,
    state: now.state,
    step: now.step,
    open: now.open,
    live: now.live,
    threshold: now.threshold,
    successRate: null,
    latencyP95Ms: null,
    probe: null,
    admitted: admittedIn(pool, now.state, now.step, now.level),
  });
  return points;
}
