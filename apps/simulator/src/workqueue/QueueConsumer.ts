// One instance consuming the leased queue through its strategy's gate, the way many fleets do: it
// claims units up to its prefetch, then asks the breaker before each call. A unit claimed while the
// breaker is shut waits in the instance until the breaker admits again or its lease runs out (a
// reclaim). A poison unit crashes the handler: the call never completes and the lease runs out.
import type { Simulation } from '../engine/Simulation.js';
import type { Provider, ProviderAnswer } from '../provider/Provider.js';
import type { CallGate } from '../workload/CallGate.js';
import { answerOutcome } from '../workload/Worker.js';
import type { LeasedQueue, QueueEvent, WorkUnit } from './LeasedQueue.js';

interface Held {
  unit: WorkUnit;
  lease: number;
  calling: boolean;
}

export class QueueConsumer {
  private readonly held: Held[] = [];
  private wakeAt = Number.POSITIVE_INFINITY;

  constructor(
    readonly id: string,
    private readonly region: string,
    private readonly sim: Simulation,
    private readonly provider: Provider,
    private readonly gate: CallGate,
    private readonly queue: LeasedQueue,
    private readonly prefetch: number,
    /** the workload's: a call answered later than this counts as slow, as a Worker counts it */
    private readonly slowThresholdMs: number,
  ) {}

  /** holds nothing: a unit that arrives may wake it (a consumer blocked on its breaker is not woken) */
  idle(): boolean {
    return this.held.length === 0;
  }

  /** work waiting for this instance (reported as backlog to the SDK) */
  backlog(): number {
    return this.held.filter((h) => !h.calling).length;
  }

  /** Claims up to the prefetch, then sends what the gate admits. */
  pump(): void {
    const now = this.sim.now();
    // units whose lease was reclaimed meanwhile are gone from this instance
    for (let i = this.held.length - 1; i >= 0; i--)
      if (!this.queue.holds(this.held[i]!.unit, this.id, this.held[i]!.lease)) this.held.splice(i, 1);
    while (this.held.length < this.prefetch) {
      const unit = this.queue.claim(this.id, now);
      if (!unit) break;
      this.held.push({ unit, lease: unit.lease, calling: false });
    }
    for (const h of this.held) {
      if (h.calling) continue;
      const kind = this.gate.acquire();
      if (kind === null) {
        this.scheduleWake();
        return;
      }
      h.calling = true;
      if (h.unit.poison) continue; // the handler hangs: no answer, the lease runs out
      this.provider.call(this.region, (answer) => this.onAnswer(h, kind, answer));
    }
  }

  private onAnswer(h: Held, kind: 'call' | 'probe', answer: ProviderAnswer): void {
    const outcome = answerOutcome(answer, this.slowThresholdMs);
    this.gate.complete(kind, outcome, answer.latencyMs, answer.retryAfterMs);
    const now = this.sim.now();
    const i = this.held.indexOf(h);
    if (i >= 0) this.held.splice(i, 1);
    if (outcome === 'success') this.queue.ack(h.unit, this.id, h.lease, now);
    else this.queue.nack(h.unit, this.id, h.lease, now, outcome as QueueEvent['outcome']);
    this.pump();
  }

  private scheduleWake(): void {
    const at = this.gate.wakeAt();
    if (at === null || at >= this.wakeAt) return;
    this.wakeAt = at;
    this.sim.at(at, () => {
      if (this.wakeAt === at) this.wakeAt = Number.POSITIVE_INFINITY;
      this.pump();
    });
  }
}
