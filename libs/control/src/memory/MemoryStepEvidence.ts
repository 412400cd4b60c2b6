// A ramp step's evidence in memory: core addEvidenceWindow / stepSample on StepWindows, keyed as the
// controller's Redis store keys it, with the same rule for which windows count (core countsTowardStep).
import {
  addEvidenceWindow,
  countsTowardStep,
  emptyStepWindows,
  stepSample,
  type Evidence,
  type RampSample,
  type StepWindows,
} from '@recloser/core';
import type { StepEvidenceStore, StepKey } from '../ports.js';

export class MemoryStepEvidence implements StepEvidenceStore {
  private readonly steps = new Map<string, StepWindows>();
  private readonly lastHeartbeat = new Map<string, number>();

  async add(key: StepKey, heartbeat: { instanceId: string; at: number }, e: Evidence): Promise<boolean> {
    const last = `${key.breakerId}\u0000${heartbeat.instanceId}`;
    const previous = this.lastHeartbeat.get(last);
    this.lastHeartbeat.set(last, heartbeat.at);
    if (!countsTowardStep(previous, key.stepSince)) return false;
    if (!(e.attempts > 0)) return false;
    const k = keyOf(key);
    let windows = this.steps.get(k);
    if (!windows) {
      // a new step: the windows of older steps are never read again
      for (const old of this.steps.keys())
        if (old.startsWith(`${key.breakerId}\u0000`)) this.steps.delete(old);
      this.steps.set(k, (windows = emptyStepWindows()));
    }
    addEvidenceWindow(windows, e);
    return true;
  }

  async sample(key: StepKey): Promise<RampSample> {
    return stepSample(this.steps.get(keyOf(key)) ?? emptyStepWindows());
  }
}

function keyOf(k: StepKey): string {
  return `${k.breakerId}\u0000${k.epoch}:${k.step}:${k.stepSince}`;
}
