// Shift states in one process's memory (the simulator, tests, a controller without a ShiftStore):
// steps of one record run one at a time (a promise chain stands in for the row lock); events go to
// the sink given, if any; log leaves are kept in order (there is no log here) for inspection.
import type { ControlEventDraft } from '../events.js';
import type { ShiftRecord, ShiftStepWrite, ShiftStore } from '../ports.js';
import type { ShiftLogStatement } from '@recloser/core';

const MAX_RECORDS = 100_000;

export class MemoryShifts implements ShiftStore {
  private readonly records = new Map<string, ShiftRecord>();
  private readonly chains = new Map<string, Promise<unknown>>();
  /** the phase changes' leaves, in the order they were stepped */
  readonly leaves: ShiftLogStatement[] = [];

  constructor(private readonly publish?: (events: readonly ControlEventDraft[]) => Promise<void>) {}

  step(
    breakerId: string,
    groupBreakerId: string,
    next: (prev: ShiftRecord | null, others: readonly ShiftRecord[]) => ShiftStepWrite | null,
  ): Promise<ShiftRecord | null> {
    const run = (this.chains.get(breakerId) ?? Promise.resolve()).then(async () => {
      const prev = this.records.get(breakerId) ?? null;
      const others = [...this.records.values()].filter(
        (r) => r.groupBreakerId === groupBreakerId && r.breakerId !== breakerId,
      );
      const write = next(prev, others);
      if (write === null) return prev;
      if (this.records.size >= MAX_RECORDS && !this.records.has(breakerId)) this.records.clear();
      this.records.set(breakerId, write.record);
      if (write.leaf) this.leaves.push(write.leaf);
      if (write.events.length > 0 && this.publish) await this.publish(write.events);
      return write.record;
    });
    const settled = run.catch(() => undefined);
    this.chains.set(breakerId, settled);
    void settled.then(() => {
      if (this.chains.get(breakerId) === settled) this.chains.delete(breakerId);
    });
    return run;
  }

  async ofGroups(groupBreakerIds: readonly string[]): Promise<ShiftRecord[]> {
    const wanted = new Set(groupBreakerIds);
    return [...this.records.values()].filter((r) => wanted.has(r.groupBreakerId));
  }
}
