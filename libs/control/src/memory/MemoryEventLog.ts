// The event seam in memory: numbers events as the controller's outbox does (id and seq) and hands
// each one, in order, to every consumer. A consumer that throws does not stop the others; the log
// keeps every event, so tests and the simulator can read what was announced.
import type { ControlEvent, ControlEventDraft, EventConsumer } from '../events.js';
import type { EventSink } from '../ports.js';

export class MemoryEventLog implements EventSink {
  readonly events: ControlEvent[] = [];
  private readonly consumers: EventConsumer[] = [];
  private seq = 0;

  constructor(
    private readonly onConsumerError: (err: unknown, event: ControlEvent) => void = () => undefined,
  ) {}

  subscribe(consumer: EventConsumer): () => void {
    this.consumers.push(consumer);
    return () => {
      const i = this.consumers.indexOf(consumer);
      if (i >= 0) this.consumers.splice(i, 1);
    };
  }

  async publish(drafts: readonly ControlEventDraft[]): Promise<void> {
    for (const d of drafts) {
      this.seq += 1;
      const event: ControlEvent = { ...d, id: `evt-${this.seq}`, seq: this.seq };
      this.events.push(event);
      for (const consume of this.consumers) {
        try {
          await consume(event);
        } catch (err) {
          this.onConsumerError(err, event);
        }
      }
    }
  }
}
