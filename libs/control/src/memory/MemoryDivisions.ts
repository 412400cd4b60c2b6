// One allowance division per period in memory: the first heartbeat of a period divides, the others
// read their share (the controller shares it through Redis, first writer wins). The next window's
// first period is divided ahead, while the current one is still asked (its move is announced).
import type { Allowance, Division, DivisionKey, DivisionStore } from '../ports.js';

export class MemoryDivisions implements DivisionStore {
  /** per breaker: division key → its period and the division */
  private readonly breakers = new Map<string, Map<string, { period: number; division: Promise<Division> }>>();

  async allowanceOf(
    key: DivisionKey,
    instanceId: string,
    _periodMs: number,
    divide: () => Promise<Division>,
  ): Promise<Allowance> {
    const k = `${key.epoch}:${key.step}:${key.period}`;
    let periods = this.breakers.get(key.breakerId);
    if (!periods) this.breakers.set(key.breakerId, (periods = new Map()));
    let entry = periods.get(k);
    if (!entry) {
      // a key is either the period now or the next window's first (announced within the period
      // before it): the one before the newest is still asked, older ones never are
      for (const [old, e] of periods) if (e.period < key.period - 1) periods.delete(old);
      const division = divide();
      const made = { period: key.period, division };
      periods.set(k, made);
      division.catch(() => {
        if (periods.get(k) === made) periods.delete(k);
      });
      entry = made;
    }
    return { ...((await entry.division).get(instanceId) ?? {}) };
  }
}
