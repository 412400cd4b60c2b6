// One step of a region's shift as stored (issue 14): core decides the plan (planShift), what it
// allows (allowedRates), who receives too fast (throttledRegions) and whether the phase changed
// (shiftPhaseChange); this file assembles the record to store, the events to announce
// (`region.shift` on a phase change, `region.shift_throttled` when a receiver starts exceeding
// what the plans allow) and the phase change's log leaf.
import {
  allowedInto,
  allowedRates,
  roundTo,
  shiftPhaseChange,
  throttledRegions,
  type ShiftLogStatement,
  type ShiftPlan,
  type ShiftState,
} from '@recloser/core';
import type { ControlEventDraft } from '../events.js';
import type { BreakerRecord, ShiftRecord, ShiftStepWrite } from '../ports.js';

export interface ShiftStepInput {
  now: number;
  /** the source region's breaker */
  breaker: Pick<BreakerRecord, 'id' | 'group' | 'dependency'>;
  groupBreakerId: string;
  source: string;
  /** core planShift's answer for this step */
  out: { plan: ShiftPlan; state: ShiftState };
  /** requests/s moved into each region now (core routedInto over the group's live rows) */
  routedIn: ReadonlyMap<string, number>;
  /** core RegionalPolicy.shiftTolerance */
  tolerance: number;
}

/** stored figures are finite: a non-finite rate is stored as 0 */
const r3 = (x: number): number => roundTo(Number.isFinite(x) ? x : 0);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What to store, announce and log for this step; null when nothing changed (or nothing ever moved). */
export function nextShiftWrite(
  prev: ShiftRecord | null,
  others: readonly ShiftRecord[],
  input: ShiftStepInput,
): ShiftStepWrite | null {
  const { plan, state } = input.out;
  if (prev === null && plan.mode === 'idle') return null;
  const allowed = allowedRates(plan, prev?.state.ratesPerSec ?? null);
  const allowedIn = allowedInto([...others.map((o) => o.allowed), allowed]);
  const throttled = throttledRegions(input.routedIn, allowedIn, input.tolerance);
  const phase = shiftPhaseChange(prev?.mode ?? null, plan.mode);
  if (
    prev !== null &&
    phase === null &&
    prev.state.steppedAt === state.steppedAt &&
    same(prev.state.ratesPerSec, state.ratesPerSec) &&
    same(prev.throttled, throttled)
  )
    return null;
  const seq = (prev?.seq ?? 0) + (phase ? 1 : 0);
  const record: ShiftRecord = {
    breakerId: input.breaker.id,
    groupBreakerId: input.groupBreakerId,
    source: input.source,
    mode: plan.mode,
    state,
    plan,
    allowed,
    throttled,
    seq,
    updatedAt: input.now,
  };
  const receivers = plan.receivers.map((r) => ({
    region: r.region,
    ratePerSec: r3(r.ratePerSec),
    headroomPerSec: r3(r.headroomPerSec),
  }));
  const expiresAt = plan.expiresAt === null ? null : new Date(plan.expiresAt).toISOString();
  const base = { group: input.breaker.group, dependency: input.breaker.dependency, source: input.source };
  const events: ControlEventDraft[] = [];
  let leaf: ShiftLogStatement | null = null;
  if (phase) {
    leaf = {
      type: 'recloser.shift/v1',
      breakerId: input.breaker.id,
      ...base,
      seq,
      phase,
      from: prev?.mode ?? 'idle',
      to: plan.mode,
      reason: plan.reason,
      deficitPerSec: r3(plan.deficitPerSec),
      receivers,
      expiresAt,
      at: new Date(input.now).toISOString(),
    };
    events.push({
      type: 'region.shift',
      breakerId: input.breaker.id,
      at: input.now,
      data: {
        ...base,
        phase,
        from: leaf.from,
        mode: plan.mode,
        reason: plan.reason,
        deficitPerSec: leaf.deficitPerSec,
        receivers,
        expiresAt,
      },
    });
  }
  for (const region of throttled) {
    if (prev?.throttled.includes(region)) continue;
    events.push({
      type: 'region.shift_throttled',
      breakerId: input.breaker.id,
      at: input.now,
      data: {
        ...base,
        region,
        receivedPerSec: r3(input.routedIn.get(region) ?? 0),
        allowedPerSec: r3(allowedIn.get(region) ?? 0),
      },
    });
  }
  return { record, events, leaf };
}
