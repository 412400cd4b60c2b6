// Typed events the host application subscribes to (and disposes), instead of the SDK logging.

export interface IDisposable {
  dispose(): void;
}

/** Subscribe with a listener; dispose the returned handle to unsubscribe. */
export type Event<T> = (listener: (value: T) => void) => IDisposable;

export class EventEmitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  readonly event: Event<T> = (listener) => {
    // wrap so the same function subscribed twice gets two independent subscriptions
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return { dispose: () => void this.listeners.delete(entry) };
  };

  get size(): number {
    return this.listeners.size;
  }

  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }
}
