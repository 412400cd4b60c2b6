// What live mode (and so `npm run demo`) prints for the group breaker: each transition of the
// controller's log once, oldest first, with the reason the controller recorded. Polling the state
// alone showed the quorum figures beside every change (a failed probe read as if a quorum had
// reopened the breaker) and missed changes between two polls (an OPEN → PROBING → OPEN in 500 ms).

/** The fields of a row of `GET /v1/admin/transitions` this needs. */
export interface LoggedTransition {
  seq: number;
  from: string;
  to: string;
  reason: string;
  at: string;
}

/**
 * The lines for the transitions after `afterSeq`, oldest first (the log lists newest first), and
 * the last seq printed. `stampAt` turns a transition's time into the run's clock.
 */
export function transitionLines(
  log: readonly LoggedTransition[],
  afterSeq: number,
  stampAt: (at: string) => string,
): { lines: string[]; lastSeq: number } {
  const fresh = log.filter((t) => t.seq > afterSeq).sort((a, b) => a.seq - b.seq);
  return {
    lines: fresh.map((t) => `${stampAt(t.at)}  ▶ group breaker: ${t.from} → ${t.to}: ${t.reason}`),
    lastSeq: fresh.length > 0 ? fresh[fresh.length - 1]!.seq : afterSeq,
  };
}
