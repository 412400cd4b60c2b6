// One allowance division per period in memory: the first heartbeat of a period divides, the others
// read their share (the controller shares it through Redis, first writer wins).
import type { Allowance, Division, DivisionKey, DivisionStore } from '../ports.js';

export class MemoryDivisions implements DivisionStore {
  private readonly periods = new Map<string, Promise<Division>>();

  async allowanceOf(
    key: DivisionKey,
    instanceId: string,
    _periodMs: number,
    divide: () => Promise<Division>,
  ): Promise<Allowance> {
    const k = `${key.breakerId}\u0000${key.epoch}:${key.step}:${key.rotation}${key.handover ? ':h' : ''}`;
    let division = this.periods.get(k);
    if (!division) {
      // older periods are never asked again
      for (const old of this.periods.keys())
        if (old.startsWith(`${key.breakerId}\u0000`)) this.periods.delete(old);
      division = divide();
      this.periods.set(k, division);
      division.catch(() => this.periods.delete(k));
    }
    return { ...((await division).get(instanceId) ?? {}) };
  }
}
