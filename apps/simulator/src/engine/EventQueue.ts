// A binary min-heap of timed callbacks. Ties break by insertion order, so a run is a pure
// function of its seed: two events at the same virtual millisecond always fire in the order scheduled.

export type SimEvent = () => void;

export class EventQueue {
  private times: number[] = [];
  private seqs: number[] = [];
  private fns: SimEvent[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.times.length;
  }

  /** Time of the earliest event, or Infinity when empty. */
  peekTime(): number {
    return this.times.length > 0 ? this.times[0]! : Number.POSITIVE_INFINITY;
  }

  push(at: number, fn: SimEvent): void {
    const seq = this.nextSeq++;
    let i = this.times.length;
    this.times.push(at);
    this.seqs.push(seq);
    this.fns.push(fn);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(at, seq, this.times[parent]!, this.seqs[parent]!)) break;
      this.move(parent, i);
      i = parent;
    }
    this.set(i, at, seq, fn);
  }

  /** Removes and returns the earliest event; undefined when empty. */
  pop(): SimEvent | undefined {
    const n = this.times.length;
    if (n === 0) return undefined;
    const top = this.fns[0]!;
    const lastTime = this.times.pop()!;
    const lastSeq = this.seqs.pop()!;
    const lastFn = this.fns.pop()!;
    if (n === 1) return top;
    let i = 0;
    const size = n - 1;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (
        right < size &&
        this.before(this.times[right]!, this.seqs[right]!, this.times[left]!, this.seqs[left]!)
      ) {
        child = right;
      }
      if (!this.before(this.times[child]!, this.seqs[child]!, lastTime, lastSeq)) break;
      this.move(child, i);
      i = child;
    }
    this.set(i, lastTime, lastSeq, lastFn);
    return top;
  }

  private before(t1: number, s1: number, t2: number, s2: number): boolean {
    return t1 < t2 || (t1 === t2 && s1 < s2);
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!;
    this.seqs[to] = this.seqs[from]!;
    this.fns[to] = this.fns[from]!;
  }

  private set(i: number, t: number, s: number, fn: SimEvent): void {
    this.times[i] = t;
    this.seqs[i] = s;
    this.fns[i] = fn;
  }
}
