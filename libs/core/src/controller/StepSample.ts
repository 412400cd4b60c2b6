// A ramp step's sample, summed across the fleet from heartbeat windows. Instances report counts and
// a p95 per window, not raw latencies, so the step's p95 is the value below which the windows
// carrying 95 % of the attempts lie: one slow instance among many does not fail the fleet's gate
// on its own, a slow fleet does. The controller keeps the windows in Redis, the simulator in memory;
// both combine them here.
import type { RampSample } from '../ramp/Gates.js';
import type { Evidence } from '../wire.js';

export interface WindowPercentile {
  value: number;
  /** attempts the window's figure was measured over */
  weight: number;
}

export function combineWindowPercentiles(
  windows: readonly WindowPercentile[],
  quantile = 0.95,
): number | null {
  const usable = windows
    .filter((w) => Number.isFinite(w.value) && w.weight > 0)
    .sort((a, b) => a.value - b.value);
  if (usable.length === 0) return null;
  const total = usable.reduce((s, w) => s + w.weight, 0);
  let seen = 0;
  for (const w of usable) {
    seen += w.weight;
    if (seen >= quantile * total) return w.value;
  }
  return usable[usable.length - 1]!.value;
}

/** The windows of one step: what the controller's step evidence store holds. */
export interface StepWindows {
  attempts: number;
  successes: number;
  rateLimited: number;
  /** calls that timed out or never reached the provider (evidence class `network`) */
  timedOut: number;
  latency: WindowPercentile[];
  ttft: WindowPercentile[];
  queueAge: WindowPercentile[];
}

export function emptyStepWindows(): StepWindows {
  return { attempts: 0, successes: 0, rateLimited: 0, timedOut: 0, latency: [], ttft: [], queueAge: [] };
}

/** Windows kept per figure: the newest matter most (the controller trims its Redis lists the same). */
export const MAX_STEP_WINDOWS = 2000;

/**
 * Whether an instance's heartbeat window counts toward the step judged since `stepSince`. The
 * window covers the calls since the instance's previous heartbeat, and the instance learns a new
 * step's allowance only from the answer to its first heartbeat after the change: so a window
 * counts only if the previous heartbeat came after the step began — the whole window then ran
 * under the new plan. Strictly after: a heartbeat in the very millisecond of the change may have
 * been answered from the old state. No previous heartbeat known → it does not count.
 */
export function countsTowardStep(previousHeartbeatAt: number | null | undefined, stepSince: number): boolean {
  return (
    previousHeartbeatAt !== null &&
    previousHeartbeatAt !== undefined &&
    Number.isFinite(previousHeartbeatAt) &&
    previousHeartbeatAt > stepSince
  );
}

/** Adds one heartbeat window of an instance's evidence; windows without attempts add nothing. */
export function addEvidenceWindow(step: StepWindows, e: Evidence): void {
  if (!(e.attempts > 0)) return;
  const weight = Math.round(e.attempts);
  step.attempts += weight;
  step.successes += Math.round(e.successes);
  step.rateLimited += Math.round(e.byClass.rate_limited);
  step.timedOut += Math.round(e.byClass.network);
  const push = (list: WindowPercentile[], value: number | null): void => {
    if (value === null || !Number.isFinite(value)) return;
    list.push({ value, weight });
    if (list.length > MAX_STEP_WINDOWS) list.splice(0, list.length - MAX_STEP_WINDOWS);
  };
  push(step.latency, e.latencyP95Ms);
  push(step.ttft, e.ttftP95Ms);
  push(step.queueAge, e.queueAgeMs);
}

/** The step's sample so far, for evaluateGates / onTick. */
export function stepSample(step: StepWindows): RampSample {
  return {
    attempts: step.attempts,
    successes: step.successes,
    rateLimited: step.rateLimited,
    timedOut: step.timedOut,
    latencyP95Ms: combineWindowPercentiles(step.latency),
    ttftP95Ms: combineWindowPercentiles(step.ttft),
    queueAgeMs: combineWindowPercentiles(step.queueAge),
  };
}
