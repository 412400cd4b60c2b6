import { useEffect, useRef, useState } from 'preact/hooks';

/** The event types the controller streams on GET /v1/admin/events (the event seam). */
export const LIVE_EVENT_TYPES = [
  'breaker.transition',
  'instance.isolated',
  'instance.recovered',
  'quorum.near',
  'quorum.clear',
  'probe.granted',
  'probe.denied',
  'probe.expired',
] as const;

export interface LiveEvent {
  id: string;
  type: string;
  breakerId: string;
  at: number;
  data: Record<string, unknown>;
}

/**
 * Subscribes to the live view while mounted. `onEvent` runs for each event (callers debounce their
 * refetch: what they show is always read back from the API, so it matches the transition log).
 */
export function useLive(onEvent: (e: LiveEvent) => void): 'connecting' | 'live' | 'reconnecting' {
  const [status, setStatus] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    const source = new EventSource('/v1/admin/events', { withCredentials: true });
    source.onopen = () => setStatus('live');
    source.onerror = () => setStatus('reconnecting');
    const listener = (m: MessageEvent<string>) => handler.current(JSON.parse(m.data) as LiveEvent);
    for (const t of LIVE_EVENT_TYPES) source.addEventListener(t, listener as EventListener);
    return () => source.close();
  }, []);
  return status;
}

/** Runs `fn` at most once per `ms`, trailing (a burst of events makes one refetch). */
export function useThrottled(fn: () => void, ms: number): () => void {
  const timer = useRef<number | null>(null);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => void (timer.current !== null && clearTimeout(timer.current)), []);
  return () => {
    if (timer.current !== null) return;
    timer.current = window.setTimeout(() => {
      timer.current = null;
      latest.current();
    }, ms);
  };
}
